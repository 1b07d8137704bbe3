package dev.distlock.spring.execution;

import dev.distlock.core.RedisLock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The holds this instance has taken through {@code @DistributedLock} and {@code LockTemplate} and
 * not yet released, for the Actuator endpoint. Holds taken directly through {@code LockClient} are
 * not listed. Infrastructure of the starter, not API.
 */
public final class ActiveHolds {

    private final Map<Long, Entry> holds = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    /**
     * The holds whose work runs on each thread now, innermost last: a transaction begun inside such work
     * checks them before it commits. Per instance, not static: the transaction listener gets this bean.
     */
    private final ThreadLocal<Deque<Long>> onThread = new ThreadLocal<>();

    /** One hold as the endpoint shows it; lease left is read when asked. */
    public record Entry(
            long id,
            LockRequest request,
            String ownerThread,
            Instant since,
            long sinceNanos,
            Map<String, Long> fencingTokens,
            RedisLock lock,
            BooleanSupplier heldLocally) {

        /** How long it has been held. */
        public Duration heldFor() {
            return Duration.ofNanos(System.nanoTime() - sinceNanos);
        }

        /**
         * Whether the hold is still valid as this instance's lease clock sees it (not released, not lost, its
         * lease not run out), asked on the thread its work runs on; never asks Redis.
         */
        public boolean isHeldLocally() {
            return heldLocally.getAsBoolean();
        }

        /** Whether the lease is renewed by the watchdog (no fixed lease). */
        public boolean watchdog() {
            return request.leaseTime() == null;
        }
    }

    /** Records a hold that was just granted to the current thread; returns its id for {@link #remove}. */
    long add(LockRequest request, Map<String, Long> tokens, RedisLock lock) {
        return add(request, tokens, lock, Thread.currentThread().getName(), lock::isHeldByCurrentThread)
                .id();
    }

    /**
     * Records a hold that was just granted to {@code owner} (an async call's handle: no thread owns it);
     * {@code heldLocally} tells whether it is still valid. Returns the entry, which a reactive transaction's
     * check reads after the work left every thread.
     */
    Entry add(
            LockRequest request, Map<String, Long> tokens, RedisLock lock, String owner, BooleanSupplier heldLocally) {
        long id = ids.incrementAndGet();
        Entry entry =
                new Entry(id, request, owner, Instant.now(), System.nanoTime(), Map.copyOf(tokens), lock, heldLocally);
        holds.put(id, entry);
        return entry;
    }

    void remove(long id) {
        holds.remove(id);
    }

    /** The hold {@code id}'s work starts running on this thread; undo with {@link #leftThread()} on the same thread. */
    void runsOnThread(long id) {
        Deque<Long> stack = onThread.get();
        if (stack == null) {
            stack = new ArrayDeque<>();
            onThread.set(stack);
        }
        stack.push(id);
    }

    /** The innermost hold's work stopped running on this thread. */
    void leftThread() {
        Deque<Long> stack = onThread.get();
        stack.pop();
        if (stack.isEmpty()) {
            onThread.remove();
        }
    }

    /** The holds whose work runs on this thread now and that are not released yet, innermost first. */
    public List<Entry> onThisThread() {
        Deque<Long> stack = onThread.get();
        if (stack == null) {
            return List.of();
        }
        return stack.stream().map(holds::get).filter(Objects::nonNull).toList();
    }

    /** Whether hold {@code id} is still listed: its work has not returned yet, so it has not been released. */
    public boolean isListed(long id) {
        return holds.containsKey(id);
    }

    /** The holds now, oldest first. */
    public List<Entry> list() {
        return holds.values().stream()
                .sorted(Comparator.comparingLong(Entry::id))
                .toList();
    }

    /** How many holds are listed now. */
    public int size() {
        return holds.size();
    }
}
