package dev.distlock.core.testing;

import dev.distlock.core.RedisLock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Child process of {@link MutualExclusionAcrossProcessesTest}: several threads increment a plain
 * Redis counter with GET then SET (a lost update shows any overlap) under one RedisLock, and append
 * each hold's fencing token to the list {@code <counter>:tokens}.
 *
 * <p>Arguments: redis URI, lock name, counter key, threads, run time in ms. Prints {@code READY},
 * waits for {@code GO} on stdin (so both processes start together), then prints
 * {@code INCREMENTS <n>} and exits 0, or prints {@code FAILED <error>} and exits 1.
 */
public final class CounterWorker {

    private CounterWorker() {}

    public static void main(String[] args) {
        String uri = args[0];
        String lockName = args[1];
        String counterKey = args[2];
        int threads = Integer.parseInt(args[3]);
        long runNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
        ChildMain.run(uri, (client, commands) -> {
            RedisLock lock = client.getLock(lockName);
            ChildMain.readyThenGo();
            AtomicLong increments = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long deadline = System.nanoTime() + runNanos;
            List<Thread> workers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Thread worker = new Thread(
                        () -> {
                            try {
                                while (System.nanoTime() - deadline < 0 && failure.get() == null) {
                                    lock.lock();
                                    try {
                                        String value = commands.get(counterKey);
                                        commands.set(
                                                counterKey,
                                                Long.toString(value == null ? 1 : Long.parseLong(value) + 1));
                                        // grant order = order of this list, since every push happens under the lock
                                        commands.rpush(
                                                counterKey + ":tokens", Long.toString(lock.currentFencingToken()));
                                    } finally {
                                        lock.unlock();
                                    }
                                    increments.incrementAndGet();
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, e);
                            }
                        },
                        "counter-worker-" + i);
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
            if (failure.get() != null) {
                throw failure.get();
            }
            return "INCREMENTS " + increments.get();
        });
    }
}
