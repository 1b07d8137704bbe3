package dev.distlock.core.testing;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
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

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String lockName = args[1];
        String counterKey = args[2];
        int threads = Integer.parseInt(args[3]);
        long runNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[4]));
        int exitCode;
        RedisClient redis = RedisClient.create(uri);
        try (LockClient client = LockClient.create(RedisURI.create(uri));
                StatefulRedisConnection<String, String> connection = redis.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            RedisLock lock = client.getLock(lockName);
            System.out.println("READY");
            System.out.flush();
            String go = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            if (!"GO".equals(go)) {
                throw new IllegalStateException("expected GO on stdin, got " + go);
            }
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
                System.out.println("FAILED " + failure.get());
                failure.get().printStackTrace(System.out);
                exitCode = 1;
            } else {
                System.out.println("INCREMENTS " + increments.get());
                exitCode = 0;
            }
        } catch (Throwable e) {
            System.out.println("FAILED " + e);
            e.printStackTrace(System.out);
            exitCode = 1;
        } finally {
            redis.shutdown();
        }
        System.out.flush();
        System.exit(exitCode);
    }
}
