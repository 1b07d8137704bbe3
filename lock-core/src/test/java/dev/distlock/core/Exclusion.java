package dev.distlock.core;

import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Counts callers inside a critical section at once: any second one is an overlap. The section lasts a
 * real span ({@link #SPAN_NANOS}, or a round trip between {@link #enter} and {@link #exit}): left empty,
 * two holders at once would almost never be inside at the same instant, and the check could not fail.
 */
final class Exclusion {

    /** How long {@link #pass} stays inside: about a lock round trip, so an overlap of two holders shows. */
    static final long SPAN_NANOS = TimeUnit.MICROSECONDS.toNanos(150);

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger entries = new AtomicInteger();

    /** Enters, stays {@link #SPAN_NANOS} (parked: fine on a virtual thread, never on an event loop), leaves. */
    void pass() {
        enter();
        LockSupport.parkNanos(SPAN_NANOS);
        exit();
    }

    /** Enters the section, recording an overlap if another caller is inside; {@link #exit} leaves it. */
    void enter() {
        if (inside.incrementAndGet() != 1) {
            overlaps.incrementAndGet();
        }
        entries.incrementAndGet();
    }

    void exit() {
        inside.decrementAndGet();
    }

    int overlaps() {
        return overlaps.get();
    }

    int entries() {
        return entries.get();
    }

    /** A worker that locks {@code lock}, {@link #pass passes}, and unlocks, until {@code stop}. */
    Callable<Void> churn(RedisLock lock, AtomicBoolean stop) {
        return () -> {
            while (!stop.get()) {
                lock.lock();
                try {
                    pass();
                } finally {
                    lock.unlock();
                }
            }
            return null;
        };
    }
}
