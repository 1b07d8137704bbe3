package dev.distlock.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The faults a {@link FaultRelay} applies right now, shared by the pipes of all its connections. Its monitor
 * guards every field and is what the pipes' writers wait on for a fault to clear.
 */
final class RelayFaults {

    /** Bytes from the server are kept back ({@link FaultRelay#holdReplies}). */
    boolean holdingReplies;
    /** Nothing passes either way ({@link FaultRelay#blackHole}). */
    boolean blackHoled;
    /** How long after it arrived a chunk from the server is delivered ({@link FaultRelay#delayReplies}). */
    long replyDelayNanos;
    /**
     * {@link FaultRelay#rewriteReplies}: the string replies carry and what the client reads instead, for
     * connections opened from then on; {@code null}: none. Read without the monitor.
     */
    volatile String @Nullable [] replyRewrite;

    /** {@link FaultRelay#releaseReplyBytes}: lets each of {@code links} deliver the first {@code bytes} it keeps back. */
    synchronized void releaseReplyBytes(int bytes, List<RelayLink> links) throws InterruptedException {
        if (!holdingReplies) {
            throw new IllegalStateException("releaseReplyBytes cuts replies held back: call holdReplies() first");
        }
        List<RelayPipe> cut = new ArrayList<>();
        for (RelayLink link : links) {
            if (link.toClient.pendingBytes() > 0) {
                link.toClient.allowance = bytes;
                cut.add(link.toClient);
            }
        }
        notifyAll();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (cut.stream().anyMatch(RelayPipe::delivering)) {
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new IllegalStateException("the first " + bytes + " bytes kept back were not written within 10 s");
            }
            wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
        }
        for (RelayPipe pipe : cut) {
            pipe.allowance = 0;
        }
    }
}
