package dev.distlock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * A TCP relay on a free loopback port that forwards every byte to a target (usually a
 * {@link RedisServer}) and injects network faults on command. It does not parse what it carries.
 * Point the client under test at {@link #uri()} and watch the real server through a direct
 * connection.
 *
 * <p>Faults, each usable at any time and applying to every connection, open or opened later:
 * <ul>
 *   <li>{@link #holdReplies()}: bytes from the server are kept back (the requests still reach it), until
 *       {@link #releaseReplies()} delivers them in order, or {@link #drop} discards them with the connections;
 *       {@link #releaseReplyBytes(int)} delivers only the first bytes kept back (a reply cut part-way);</li>
 *   <li>{@link #delayReplies(Duration)}: every chunk from the server is delivered that long after it arrived;</li>
 *   <li>{@link #blackHole()}: nothing passes either way and nothing is closed, like a partition; what was
 *       sent meanwhile is delivered by {@link #heal()}, as TCP would retransmit it;</li>
 *   <li>{@link #drop(Drop)}: every open connection is closed on both sides, towards the client with a FIN
 *       (normal close) or an RST (SO_LINGER 0); bytes kept back are lost, and every fault is cleared first,
 *       so that the client's reconnections pass;</li>
 *   <li>{@link #heal()}: every fault cleared, everything kept back delivered;</li>
 *   <li>{@link #rewriteReplies(String, String)}: a string in the server's replies reaches the client as
 *       another, on connections opened afterwards (a server made to look like another version); not
 *       cleared by {@link #heal()}.</li>
 * </ul>
 *
 * <pre>{@code
 * try (FaultRelay relay = FaultRelay.to(redis.server())) {
 *     RedisClient client = RedisClient.create(relay.uri());
 *     relay.holdReplies();
 *     ... send a command, see its effect on the server directly ...
 *     relay.drop(FaultRelay.Drop.RST); // its reply is never delivered
 * }
 * }</pre>
 *
 * Plain blocking sockets: two threads per direction of each connection (one reads, one writes when
 * the faults let it), all daemons.
 */
public final class FaultRelay implements AutoCloseable {

    /** How {@link #drop(Drop)} closes the client's side of a connection. */
    public enum Drop {
        /** A normal close: the client reads end of stream. */
        FIN,
        /** SO_LINGER 0: the client gets "connection reset by peer". */
        RST
    }

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket listener;
    private final List<Link> links = new CopyOnWriteArrayList<>();
    /** Guards the fault state below and every pipe's queue; waited on by the writers. */
    private final Object lock = new Object();

    private boolean holdingReplies;
    private boolean blackHoled;
    private long replyDelayNanos;
    /** {@link #rewriteReplies}: the string replies carry, and what the client reads instead; {@code null}: none. */
    private volatile String @Nullable [] replyRewrite;

    private volatile boolean closed;

    private FaultRelay(String targetHost, int targetPort) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        try {
            this.listener = new ServerSocket();
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot open the relay's listening socket", e);
        }
        Thread acceptor = new Thread(this::acceptLoop, "fault-relay-accept-" + port());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A relay forwarding to {@code server}. */
    public static FaultRelay to(RedisServer server) {
        return new FaultRelay(server.host(), server.port());
    }

    /** A relay forwarding to {@code host:port}. */
    public static FaultRelay to(String host, int port) {
        return new FaultRelay(host, port);
    }

    public int port() {
        return listener.getLocalPort();
    }

    public String host() {
        return "127.0.0.1";
    }

    /** {@code redis://127.0.0.1:<relay port>}. */
    public String uri() {
        return "redis://" + host() + ":" + port();
    }

    /** Keeps every byte from the server back from now on; requests still pass. */
    public void holdReplies() {
        synchronized (lock) {
            holdingReplies = true;
            links.forEach(link -> link.passReplies = false);
            lock.notifyAll();
        }
    }

    /**
     * While replies are held, delivers what one connection kept back and lets its replies pass, the others
     * staying held: {@code n} counts the connections open now, oldest first. A client opens its
     * connections in a known order (a LockClient: commands, renewals, pub/sub), so a test can choose which
     * of two replies it reads first.
     */
    public void releaseRepliesOf(int n) {
        synchronized (lock) {
            links.get(n).passReplies = true;
            lock.notifyAll();
        }
    }

    /** Delivers what {@link #holdReplies()} kept back, in order, and lets replies pass again. */
    public void releaseReplies() {
        synchronized (lock) {
            holdingReplies = false;
            lock.notifyAll();
        }
    }

    /**
     * While replies are held, delivers the first {@code bytes} bytes each connection keeps back from the
     * server and keeps the rest back: a reply cut part-way, as when a connection drops inside one (drop
     * it next). Returns once those bytes were written to the client's socket.
     *
     * @throws IllegalStateException when replies are not held, or the bytes were not written within 10 s
     */
    public void releaseReplyBytes(int bytes) throws InterruptedException {
        synchronized (lock) {
            if (!holdingReplies) {
                throw new IllegalStateException("releaseReplyBytes cuts replies held back: call holdReplies() first");
            }
            List<Pipe> cut = new ArrayList<>();
            for (Link link : links) {
                if (link.toClient.pendingBytes() > 0) {
                    link.toClient.allowance = bytes;
                    cut.add(link.toClient);
                }
            }
            lock.notifyAll();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cut.stream().anyMatch(Pipe::delivering)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new IllegalStateException(
                            "the first " + bytes + " bytes kept back were not written within 10 s");
                }
                lock.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
            for (Pipe pipe : cut) {
                pipe.allowance = 0;
            }
        }
    }

    /**
     * On connections opened from now on, every {@code from} in the server's replies reaches the client as
     * {@code to}, of the same length in bytes so that RESP lengths stay right: for example
     * {@code "redis_version:7."} as {@code "redis_version:6."}, a Redis 7 that answers INFO as an older one.
     *
     * @throws IllegalArgumentException when the lengths differ, or {@code from} is empty or starts with CR or LF
     */
    public void rewriteReplies(String from, String to) {
        new ReplyRewrite(from, to); // checks the strings now, in the test's thread
        replyRewrite = new String[] {from, to};
    }

    /**
     * Makes {@code server}, this relay's target, answer INFO as a Redis 6 on connections opened from now on (its
     * {@code redis_version} rewritten: {@link #rewriteReplies}), for what a client does with a server older than 7.
     */
    public void poseAsRedis6(RedisServer server) {
        String major = server.version().replaceAll("\\..*", "");
        rewriteReplies("redis_version:" + major + ".", "redis_version:6.");
    }

    /** Delivers every chunk from the server {@code delay} after it arrived ({@link Duration#ZERO}: at once). */
    public void delayReplies(Duration delay) {
        synchronized (lock) {
            replyDelayNanos = delay.toNanos();
            lock.notifyAll();
        }
    }

    /** Passes nothing either way and closes nothing; new connections are accepted but carry nothing either. */
    public void blackHole() {
        synchronized (lock) {
            blackHoled = true;
            lock.notifyAll();
        }
    }

    /** Clears every fault and delivers everything kept back, in order. */
    public void heal() {
        synchronized (lock) {
            holdingReplies = false;
            blackHoled = false;
            replyDelayNanos = 0;
            lock.notifyAll();
        }
    }

    /**
     * Clears every fault, then closes every open connection on both sides: the client's side with a
     * FIN or an RST. Bytes still kept back are lost. Connections opened afterwards pass normally.
     */
    public void drop(Drop how) {
        drop(how, link -> true);
    }

    /**
     * As {@link #drop(Drop)}, but closes only the connections with replies kept back right now; the
     * others deliver what was kept back and carry on (a client's subscriptions stay, say, while the
     * connection its commands went over is lost).
     */
    public void dropHolding(Drop how) {
        drop(how, link -> link.toClient.pendingBytes() > 0);
    }

    /** Clears every fault and closes the connections {@code which} picks (under {@code lock}). */
    private void drop(Drop how, Predicate<Link> which) {
        List<Link> dropped = new ArrayList<>();
        synchronized (lock) {
            holdingReplies = false;
            blackHoled = false;
            replyDelayNanos = 0;
            for (Link link : links) {
                if (which.test(link)) {
                    // down before any writer runs again: nothing kept back can slip out between here and the close
                    link.down = true;
                    link.toClient.discard();
                    link.toServer.discard();
                    dropped.add(link);
                }
            }
            lock.notifyAll();
        }
        for (Link link : dropped) {
            link.closeSockets(how);
        }
    }

    /** Connections open through the relay right now. */
    public int openConnections() {
        return links.size();
    }

    /** Bytes from the server kept back right now (held, delayed or black-holed). */
    public long pendingReplyBytes() {
        synchronized (lock) {
            return links.stream().mapToLong(l -> l.toClient.pendingBytes()).sum();
        }
    }

    /**
     * Bytes from clients kept back right now (black-holed): a request the client has written to its
     * socket and the server has not seen.
     */
    public long pendingRequestBytes() {
        synchronized (lock) {
            return links.stream().mapToLong(l -> l.toServer.pendingBytes()).sum();
        }
    }

    /** Stops listening and closes every connection (FIN). */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        drop(Drop.FIN);
    }

    @Override
    public String toString() {
        return "FaultRelay[" + port() + " -> " + targetHost + ":" + targetPort + "]";
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            try {
                Socket server = new Socket(targetHost, targetPort);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                Link link = new Link(client, server);
                links.add(link);
                link.start();
            } catch (IOException e) {
                closeQuietly(client); // the target is down: so is the relayed connection
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }

    /** One relayed connection: a client socket and its own socket to the target. */
    private final class Link {
        final Socket client;
        final Socket server;
        final Pipe toServer;
        final Pipe toClient;
        /** Set under {@code lock}; a writer delivers nothing once it is set. */
        volatile boolean down;
        /** Set under {@code lock}: replies pass while the others are held ({@link #releaseRepliesOf}). */
        boolean passReplies;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
            this.toServer = new Pipe(this, client, server, false);
            this.toClient = new Pipe(this, server, client, true);
        }

        void start() {
            toServer.start("c>s");
            toClient.start("s>c");
        }

        /** Ends the link after one side closed or failed: the other side gets a FIN. */
        void close() {
            synchronized (lock) {
                down = true;
                lock.notifyAll(); // writers waiting for a fault to clear see the link is down
            }
            closeSockets(Drop.FIN);
        }

        void closeSockets(Drop how) {
            links.remove(this);
            if (how == Drop.RST) {
                try {
                    client.setSoLinger(true, 0);
                } catch (SocketException ignored) {
                    // already closed: nothing to reset
                }
            }
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    /** One direction of a link: a reader that queues what arrives, a writer that delivers it when the faults allow. */
    private final class Pipe {
        private static final byte[] END = new byte[0];
        private final Link link;
        private final Socket client;
        private final Socket from;
        private final Socket to;
        private final boolean reply;
        /** Chunks read and not yet written, with when they arrived; {@link #END} marks end of stream. Guarded by lock. */
        private final ArrayDeque<Object[]> queue = new ArrayDeque<>();
        /** Bytes this pipe may still deliver while replies are held ({@link #releaseReplyBytes}). Guarded by lock. */
        long allowance;
        /** Whether a chunk taken from the queue is being written. Guarded by lock. */
        private boolean writing;

        Pipe(Link link, Socket from, Socket to, boolean reply) {
            this.link = link;
            this.client = link.client;
            this.from = from;
            this.to = to;
            this.reply = reply;
        }

        void start(String direction) {
            String name = "fault-relay-" + port() + "-" + client.getPort() + "-" + direction;
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

        /** Whether bytes {@link #releaseReplyBytes} let through are still to be written (under lock). */
        boolean delivering() {
            return !link.down && (writing || (allowance > 0 && pendingBytes() > 0));
        }

        private void read() {
            byte[] buffer = new byte[16 * 1024];
            String[] replace = replyRewrite;
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
            synchronized (lock) {
                queue.add(new Object[] {chunk, System.nanoTime()});
                lock.notifyAll();
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
                    synchronized (lock) {
                        writing = false;
                        lock.notifyAll();
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
            synchronized (lock) {
                while (true) {
                    if (link.down) {
                        return null;
                    }
                    Object[] head = queue.peek();
                    boolean kept = blackHoled || (reply && holdingReplies && !link.passReplies);
                    if (head != null && kept && !blackHoled && allowance > 0 && head[0] != END) {
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
                        lock.wait();
                        continue;
                    }
                    long due = (long) head[1] + (reply ? replyDelayNanos : 0);
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        lock.wait(Math.max(1, wait / 1_000_000), 0);
                        continue;
                    }
                    queue.poll();
                    writing = true;
                    return (byte[]) head[0];
                }
            }
        }
    }
}
