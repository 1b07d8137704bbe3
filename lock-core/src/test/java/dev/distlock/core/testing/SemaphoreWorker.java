package dev.distlock.core.testing;

import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisSemaphore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Child process of {@link SemaphoreAcrossProcessesTest}: several threads take one permit of a semaphore
 * at a time and, while they hold it, count themselves in a plain Redis counter outside the library
 * ({@code INCR <counter>} on entry, {@code DECR} on exit); an entry that finds more holders than permits
 * is pushed to {@code <counter>:over}. Each grant's fencing token is pushed to {@code <counter>:tokens}.
 *
 * <p>Arguments: redis URI, semaphore name, permits, counter key, threads, run time in ms. Prints
 * {@code READY}, waits for {@code GO} on stdin, then prints {@code GRANTS <n>} and exits 0, or prints
 * {@code FAILED <error>} and exits 1.
 */
public final class SemaphoreWorker {

    private SemaphoreWorker() {}

    public static void main(String[] args) throws Exception {
        int permits = Integer.parseInt(args[2]);
        String counter = args[3];
        int threads = Integer.parseInt(args[4]);
        long runNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
        ChildMain.run(args[0], (client, commands) -> {
            RedisSemaphore semaphore = client.getSemaphore(args[1], permits);
            ChildMain.readyThenGo();
            AtomicLong grants = new AtomicLong();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            long deadline = System.nanoTime() + runNanos;
            List<Thread> workers = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Thread worker = new Thread(
                        () -> {
                            try {
                                while (System.nanoTime() - deadline < 0 && failure.get() == null) {
                                    try (LockHandle permit = semaphore.acquire()) {
                                        long inside = commands.incr(counter);
                                        if (inside > permits) {
                                            commands.rpush(counter + ":over", Long.toString(inside));
                                        }
                                        commands.rpush(counter + ":tokens", Long.toString(permit.fencingToken()));
                                        commands.decr(counter);
                                    }
                                    grants.incrementAndGet();
                                }
                            } catch (Throwable e) {
                                failure.compareAndSet(null, e);
                            }
                        },
                        "semaphore-worker-" + i);
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
            if (failure.get() != null) {
                throw failure.get();
            }
            return "GRANTS " + grants.get();
        });
    }
}
