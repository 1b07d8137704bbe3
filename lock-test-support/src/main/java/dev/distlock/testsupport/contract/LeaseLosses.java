package dev.distlock.testsupport.contract;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The lease losses a client reported to its listener, as plain records: a {@link LockMaker}'s listener adds
 * them, so the contract reads them without knowing the library's listener type. Thread-safe.
 */
public final class LeaseLosses {

    /** One report: the lock's key (its name, or a multi-lock's member name) and the reason given. */
    public record LeaseLost(String key, String reason) {}

    private final List<LeaseLost> reported = new CopyOnWriteArrayList<>();

    /** Called by the listener for every lease loss it hears of. */
    public void report(String key, String reason) {
        reported.add(new LeaseLost(key, reason));
    }

    /** The reports of keys that start with {@code name} (a multi-lock's member names do). */
    public long of(String name) {
        return reported.stream().filter(l -> l.key().startsWith(name)).count();
    }
}
