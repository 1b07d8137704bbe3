package dev.distlock.testsupport.contract;

import java.time.Duration;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * How one topology makes the locks the {@link LockContract} runs against: its clients, its locks, and the
 * few things the contract asks of it that the locks' API does not show.
 *
 * @param <C> the topology's client (a {@code LockClient}, a {@code RedLockClient}, ...)
 */
public interface LockMaker<C extends AutoCloseable> {

    /** The kinds this topology makes; the contract's tests of other kinds do not run on it. */
    Set<LockKind> kinds();

    /**
     * A new client on the topology under test.
     *
     * @param watchdogLease the watchdog lease, or {@code null} for the client's default (30 s)
     * @param losses where its listener reports lease losses, or {@code null} for no listener
     */
    C open(@Nullable Duration watchdogLease, @Nullable LeaseLosses losses);

    /** The lock of {@code kind} named {@code name}, made by {@code client}. */
    ContractLock lock(C client, LockKind kind, String name);

    /**
     * Returns once {@code waiter}, waiting for a lock through {@code client}, has found it held and waits
     * for its release (so that the release, not a free lock, is what lets it in); fails past {@code atMost}.
     */
    void awaitWaiting(C client, Thread waiter, Duration atMost);

    /** What {@code unlock} throws after the lock was lost under its holder. */
    Class<? extends RuntimeException> leaseLost();

    /**
     * What a try throws when the store did not answer it in time (a try without a wait still gives it a short
     * step): the contract sends such a try again and asserts the store's answer ({@code Answered}).
     */
    Class<? extends RuntimeException> unanswered();
}
