package dev.distlock.core.testing;

import dev.distlock.core.LockHandle;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisReadWriteLock;
import dev.distlock.testsupport.OtherThread;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Callers of several clients taking one lock and giving up at every moment: per client, three threads
 * whose waits of 1-15 ms run out, and one caller of async handles cancelled 0-5 ms after it asked.
 * Every holder passes the {@link Exclusion} with its fencing token. A call Redis was too slow for
 * ({@link LockUnavailableException}: a loaded machine, or a connection the test breaks) counts as one
 * more way of giving up; any other error, an unlock's included, fails the run.
 *
 * <p>Of a read/write lock ({@link #readWrite}), threads 0 and 1 of each client read (passing shared),
 * thread 2 writes, and the handles read or write at random.
 */
public final class GiveUpStorm {

    /** What the test does while the callers run, until {@code until} (System.nanoTime). */
    public interface Meanwhile {
        void run(long until) throws Exception;
    }

    private final Exclusion exclusion = new Exclusion();

    /**
     * One lock per client, all of the same name: its exclusive side, and its shared side (the read lock
     * of a read/write lock), or null.
     */
    private record Sides(RedisLock exclusive, RedisLock shared) {

        /** The side thread {@code t} takes: of a read/write lock, threads 0 and 1 read, 2 writes. */
        RedisLock of(int t) {
            return shared != null && t < 2 ? shared : exclusive;
        }
    }

    private final List<Sides> locks;

    private final boolean reenter;

    /**
     * @param locks the lock of each client, all of one name
     * @param reenter whether the first thread of each client also re-enters its hold (waiting up to
     *     5 ms) and checks that the re-entry keeps the hold's fencing token
     */
    public GiveUpStorm(List<RedisLock> locks, boolean reenter) {
        this(reenter, locks.stream().map(lock -> new Sides(lock, null)).toList());
    }

    private GiveUpStorm(boolean reenter, List<Sides> locks) {
        this.locks = List.copyOf(locks);
        this.reenter = reenter;
    }

    /**
     * Readers and writers of each client's read/write lock, all of one name; the first thread of each
     * client re-enters its read hold and checks that the re-entry keeps the hold's fencing token.
     */
    public static GiveUpStorm readWrite(List<RedisReadWriteLock> locks) {
        return new GiveUpStorm(
                true,
                locks.stream()
                        .map(rw -> new Sides(rw.writeLock(), rw.readLock()))
                        .toList());
    }

    /** Runs the callers for {@code length}; then their record. */
    public Exclusion run(Duration length) throws Exception {
        return run(length, until -> TimeUnit.NANOSECONDS.sleep(until - System.nanoTime()));
    }

    /** Runs the callers for {@code length}, the test's {@code meanwhile} beside them; then their record. */
    public Exclusion run(Duration length, Meanwhile meanwhile) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        List<OtherThread<Void>> callers = new ArrayList<>();
        for (int c = 0; c < locks.size(); c++) {
            Sides sides = locks.get(c);
            for (int t = 0; t < 3; t++) {
                RedisLock lock = sides.of(t);
                boolean shared = lock == sides.shared();
                String who = "thread " + t + " of client " + c + (shared ? ", reading" : "");
                boolean reenters = reenter && t == 0;
                callers.add(OtherThread.start(() -> threadCalls(lock, shared, who, reenters, stop)));
            }
            String who = "handles of client " + c;
            callers.add(OtherThread.start(() -> handleCalls(sides, who, stop)));
        }
        try {
            meanwhile.run(System.nanoTime() + length.toNanos());
        } finally {
            stop.set(true);
        }
        for (OtherThread<Void> caller : callers) {
            caller.get();
        }
        return exclusion;
    }

    private Void threadCalls(RedisLock lock, boolean shared, String who, boolean reenters, AtomicBoolean stop)
            throws Exception {
        while (!stop.get()) {
            if (shared) {
                // readers pause between holds, so that the lock is also free now and then: besides writers
                // that wait and hold new readers back, the storm has readers and writers race for a free lock
                TimeUnit.MICROSECONDS.sleep(ThreadLocalRandom.current().nextInt(0, 4000));
            }
            if (tryLockUnlessRedisIsSlow(
                    lock, Duration.ofMillis(ThreadLocalRandom.current().nextInt(1, 15)))) {
                try {
                    long token = lock.currentFencingToken();
                    if (reenters && tryLockUnlessRedisIsSlow(lock, Duration.ofMillis(5))) {
                        try {
                            if (lock.currentFencingToken() != token) {
                                throw new AssertionError(who + ": a re-entry changed the hold's fencing token from "
                                        + token + " to " + lock.currentFencingToken());
                            }
                        } finally {
                            lock.unlock();
                        }
                    }
                    pass(shared, who, token);
                } finally {
                    lock.unlock();
                }
            }
        }
        return null;
    }

    private void pass(boolean shared, String who, long token) {
        if (shared) {
            exclusion.passShared(who, token);
        } else {
            exclusion.pass(who, token);
        }
    }

    private Void handleCalls(Sides sides, String who, AtomicBoolean stop) throws Exception {
        while (!stop.get()) {
            boolean shared =
                    sides.shared() != null && ThreadLocalRandom.current().nextBoolean();
            RedisLock lock = shared ? sides.shared() : sides.exclusive();
            CompletableFuture<Optional<LockHandle>> taking =
                    lock.tryLockAsync(Duration.ofSeconds(1)).toCompletableFuture();
            Thread.sleep(ThreadLocalRandom.current().nextInt(0, 5));
            if (taking.cancel(false)) {
                continue;
            }
            Optional<LockHandle> handle;
            try {
                handle = taking.get(10, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof LockUnavailableException) {
                    continue; // as for the threads: Redis slower than the wait
                }
                throw e;
            }
            if (handle.isPresent()) {
                try {
                    pass(shared, who + (shared ? ", reading" : ""), handle.get().fencingToken());
                } finally {
                    handle.get().unlock();
                }
            }
        }
        return null;
    }

    /**
     * A tryLock that counts "Redis did not answer within the wait" as giving up: on a loaded machine a
     * short wait can end that way, and so can one whose connection the test breaks.
     */
    private static boolean tryLockUnlessRedisIsSlow(RedisLock lock, Duration wait) throws InterruptedException {
        try {
            return lock.tryLock(wait);
        } catch (LockUnavailableException e) {
            return false;
        }
    }
}
