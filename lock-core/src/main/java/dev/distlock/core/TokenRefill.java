package dev.distlock.core;

import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Lock cohorting beyond one block of fencing tokens. A reentrant grant reserves a block of tokens in
 * Redis for the local owners it passes between; once half of it is used, the holder that hands it on
 * asks Redis in the background for the next block, which Redis gives only while no other client waits
 * for the lock. The holder that has used the last token of a block takes the next one if it came, and
 * otherwise releases the lock in Redis, as without refills. So a client alone on a lock keeps its
 * threads' turns local for the whole hand-off window, and one that another client waits for lets it in
 * within a block. Shared by every hold of one grant; one request at a time; a refused or failed one ends
 * the refills of that grant.
 */
final class TokenRefill {

    private static final int IDLE = 0;
    private static final int ASKED = 1;
    private static final int READY = 2;
    private static final int ENDED = 3;

    private final AtomicInteger state = new AtomicInteger(IDLE);
    /** The block that came, valid while the state is READY (written before it). */
    private volatile long first;

    private volatile long last;

    /** Whether the caller is to ask for the next block now: true for one caller until that block is taken. */
    boolean ask() {
        return state.compareAndSet(IDLE, ASKED);
    }

    /** Redis's answer to an ask: the block {@code [first, last]}, or {@code first} 0 when it refused or failed. */
    void answered(long first, long last) {
        if (first > 0) {
            this.first = first;
            this.last = last;
            state.compareAndSet(ASKED, READY);
        } else {
            state.compareAndSet(ASKED, ENDED);
        }
    }

    /** The block that came, {@code {first, last}}, now the caller's to use; {@code null} when none did (yet). */
    long @Nullable [] take() {
        if (state.get() != READY) {
            return null;
        }
        long[] block = {first, last};
        state.set(IDLE);
        return block;
    }
}
