package dev.distlock.core.internal.engine;

import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;

/**
 * Lock cohorting beyond one block of fencing tokens. A reentrant grant reserves a block of tokens in
 * Redis for the local owners it passes between; once half of it is used, the holder that hands it on
 * asks Redis in the background for the next block, which Redis gives only while no other client waits
 * for the lock. The holder that has used the last token of a block takes the next one if it came, and
 * otherwise releases the lock in Redis, as without refills. A block that came starts the hand-off
 * window again from when it was asked for (Redis saw no other client waiting after that). So a client
 * alone on a lock keeps its threads' turns local for as long as they keep coming quickly, and one that
 * another client waits for lets it in within a block or a window, whichever ends first. Shared by every
 * hold of one grant; one request at a time; a refused or failed one ends the refills of that grant.
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

    /**
     * When the last block Redis gave was asked for, 0 before the first: Redis saw no other client waiting
     * after that, so the grant's hand-off window starts again there.
     */
    private volatile long confirmedNanos;

    /**
     * Where the hand-off window of a grant asked for in Redis at {@code grantedNanos} starts now: there,
     * or when the last block Redis gave it was asked for, whichever is later.
     */
    static long windowStart(long grantedNanos, @Nullable TokenRefill refill) {
        long confirmed = refill == null ? 0 : refill.confirmedNanos;
        return confirmed != 0 && confirmed - grantedNanos > 0 ? confirmed : grantedNanos;
    }

    /** Whether the caller is to ask for the next block now: true for one caller until that block is taken. */
    boolean ask() {
        return state.compareAndSet(IDLE, ASKED);
    }

    /**
     * Redis's answer to an ask made at {@code askedNanos}: the block {@code [first, last]}, or {@code first}
     * 0 when it refused or failed.
     */
    void answered(long first, long last, long askedNanos) {
        if (first > 0) {
            this.first = first;
            this.last = last;
            this.confirmedNanos = askedNanos;
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
