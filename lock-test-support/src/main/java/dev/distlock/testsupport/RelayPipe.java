package dev.distlock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.util.ArrayDeque;
import java.util.Arrays;

/** One direction of a link: a reader that queues what arrives, a writer that delivers it when the faults allow. */
final class RelayPipe {
    private static final byte[] END = new byte[0];
    private final RelayFaults faults;
    private final RelayLink link;
    private final Socket from;
    private final Socket to;
    private final boolean reply;
    /** Chunks read and not yet written, with when they arrived; {@link #END} marks end of stream. Guarded by the faults' monitor. */
    private final ArrayDeque<Object[]> queue = new ArrayDeque<>();
    /** Bytes this pipe may still deliver while replies are held ({@link FaultRelay#releaseReplyBytes}). Guarded by the faults' monitor. */
    long allowance;
    /** Whether a chunk taken from the queue is being written. Guarded by the faults' monitor. */
    private boolean writing;

    RelayPipe(RelayFaults faults, RelayLink link, Socket from, Socket to, boolean reply) {
        this.faults = faults;
        this.link = link;
        this.from = from;
        this.to = to;
        this.reply = reply;
    }

    /** Starts its reader and writer threads, named from {@code name}. */
    void start(String name) {
        Thread reader = new Thread(this::read, name + "-read");
        Thread writer = new Thread(this::write, name + "-write");
        reader.setDaemon(true);
        writer.setDaemon(true);
        reader.start();
        writer.start();
    }

    void discard() {
        queue.clear();
    }

    long pendingBytes() {
        return queue.stream().mapToLong(c -> ((byte[]) c[0]).length).sum();
    }

    /** Whether bytes {@link FaultRelay#releaseReplyBytes} let through are still to be written (under the faults' monitor). */
    boolean delivering() {
        return !link.down && (writing || (allowance > 0 && pendingBytes() > 0));
    }

    private void read() {
        byte[] buffer = new byte[16 * 1024];
        String[] replace = faults.replyRewrite;
        ReplyRewrite rewrite = reply && replace != null ? new ReplyRewrite(replace[0], replace[1]) : null;
        try {
            InputStream in = from.getInputStream();
            int n;
            while ((n = in.read(buffer)) >= 0) {
                byte[] chunk = Arrays.copyOf(buffer, n);
                enqueue(rewrite == null ? chunk : rewrite.apply(chunk));
            }
            if (rewrite != null) {
                enqueue(rewrite.rest());
            }
            enqueue(END);
        } catch (IOException e) {
            link.close(); // a reset or a close by drop(): the whole link goes
        }
    }

    private void enqueue(byte[] chunk) {
        if (chunk.length == 0 && chunk != END) {
            return; // all of it kept back by a rewrite
        }
        synchronized (faults) {
            queue.add(new Object[] {chunk, System.nanoTime()});
            faults.notifyAll();
        }
    }

    private void write() {
        try {
            OutputStream out = to.getOutputStream();
            while (true) {
                byte[] chunk = next();
                if (chunk == null) {
                    return;
                }
                if (chunk == END) {
                    // the sender closed: pass the close on (a FIN) and end the link
                    link.close();
                    return;
                }
                out.write(chunk);
                out.flush();
                synchronized (faults) {
                    writing = false;
                    faults.notifyAll();
                }
            }
        } catch (IOException e) {
            link.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The next chunk this pipe may write now, waiting while the faults keep it back; {@code null} when the link is down. */
    private byte[] next() throws InterruptedException {
        synchronized (faults) {
            while (true) {
                if (link.down) {
                    return null;
                }
                Object[] head = queue.peek();
                boolean kept = faults.blackHoled || (reply && faults.holdingReplies && !link.passReplies);
                if (head != null && kept && !faults.blackHoled && allowance > 0 && head[0] != END) {
                    byte[] chunk = (byte[]) head[0];
                    int n = (int) Math.min(allowance, chunk.length);
                    allowance -= n;
                    if (n == chunk.length) {
                        queue.poll();
                    } else {
                        head[0] = Arrays.copyOfRange(chunk, n, chunk.length);
                    }
                    writing = true;
                    return Arrays.copyOf(chunk, n);
                }
                if (head == null || kept) {
                    faults.wait();
                    continue;
                }
                long due = (long) head[1] + (reply ? faults.replyDelayNanos : 0);
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    faults.wait(Math.max(1, wait / 1_000_000), 0);
                    continue;
                }
                queue.poll();
                writing = true;
                return (byte[]) head[0];
            }
        }
    }
}
