package dev.distlock.core;

import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/** Counts callers inside a critical section at once: any second one is an overlap. */
final class Exclusion {

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger entries = new AtomicInteger();

    /** Enters and leaves the critical section once, recording an overlap if another caller was inside. */
    void pass() {
        if (inside.incrementAndGet() != 1) {
            overlaps.incrementAndGet();
        }
        entries.incrementAndGet();
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
