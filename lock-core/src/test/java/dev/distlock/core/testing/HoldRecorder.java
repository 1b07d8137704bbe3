package dev.distlock.core.testing;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.redis.ClientShutdown;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Child process of {@link HoldHistoryCheckTest}: several threads take one lock in a loop and record
 * every hold as {@code token,start,end,owner}, with start and end read from the Redis server's own
 * clock (TIME, microseconds) while the lock is held, so all processes share one clock.
 * Arguments: redis URI, lock name, threads, run time in ms, output file. Exits 0 when done.
 */
public final class HoldRecorder {

    private HoldRecorder() {}

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String lockName = args[1];
        int threads = Integer.parseInt(args[2]);
        long runNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[3]));
        Path output = Path.of(args[4]);
        RedisClient redis = RedisClient.create(uri);
        int exit = 0;
        try (LockClient client = LockClient.create(RedisURI.create(uri));
                PrintWriter out = new PrintWriter(Files.newBufferedWriter(output, StandardCharsets.UTF_8))) {
            List<Thread> workers = new ArrayList<>();
            List<Throwable> failures = new ArrayList<>();
            long deadline =
                    System.nanoTime() + runNanos; // after start-up, so a slow JVM start still runs the whole time
            for (int t = 0; t < threads; t++) {
                String owner = ProcessHandle.current().pid() + "/" + t;
                Thread worker = new Thread(() -> {
                    try (StatefulRedisConnection<String, String> connection = redis.connect()) {
                        RedisCommands<String, String> commands = connection.sync();
                        RedisLock lock = client.getLock(lockName);
                        while (System.nanoTime() - deadline < 0) {
                            lock.lock();
                            try {
                                long start = micros(commands.time());
                                long end = micros(commands.time());
                                synchronized (out) {
                                    out.println(lock.currentFencingToken() + "," + start + "," + end + "," + owner);
                                }
                            } finally {
                                lock.unlock();
                            }
                        }
                    } catch (Throwable e) {
                        synchronized (failures) {
                            failures.add(e);
                        }
                    }
                });
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
            if (!failures.isEmpty()) {
                failures.get(0).printStackTrace(System.out);
                exit = 1;
            }
        } finally {
            ClientShutdown.shutdown(redis);
        }
        System.exit(exit);
    }

    private static long micros(List<String> time) {
        return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
    }
}
