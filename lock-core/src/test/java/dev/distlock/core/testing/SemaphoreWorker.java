package dev.distlock.core.testing;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisSemaphore;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
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
        String uri = args[0];
        int permits = Integer.parseInt(args[2]);
        String counter = args[3];
        int threads = Integer.parseInt(args[4]);
        long runNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[5]));
        int exitCode = 1;
        RedisClient redis = RedisClient.create(uri);
        try (LockClient client = LockClient.create(RedisURI.create(uri));
                StatefulRedisConnection<String, String> connection = redis.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            RedisSemaphore semaphore = client.getSemaphore(args[1], permits);
            System.out.println("READY");
            System.out.flush();
            String go = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            if (!"GO".equals(go)) {
                throw new IllegalStateException("expected GO on stdin, got " + go);
            }
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
                System.out.println("FAILED " + failure.get());
                failure.get().printStackTrace(System.out);
            } else {
                System.out.println("GRANTS " + grants.get());
                exitCode = 0;
            }
        } catch (Throwable e) {
            System.out.println("FAILED " + e);
            e.printStackTrace(System.out);
        } finally {
            redis.shutdown();
        }
        System.out.flush();
        System.exit(exitCode);
    }
}
