package dev.distlock.core.testing;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockUnavailableException;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.redis.ClientShutdown;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Child process of {@link ReentrantChurnSoakTest}: threads take re-entrant locks at random depths
 * (lock, lock, unlock, lock, unlock, unlock ...) on a few names while the test kills their
 * connections, and check after every step that the local hold count is what the steps make it and
 * that Redis holds the same count. Each outermost hold is recorded as
 * {@code name,token,start,end,owner} with start and end read from the Redis server's clock (TIME)
 * while held.
 *
 * <p>Arguments: redis URI, lock names (comma-separated), threads, run time in ms, output file, random
 * seed. Prints {@code READY}, waits for {@code GO} on stdin, churns, prints
 * {@code DONE holds=<n> unavailable=<n> busy=<n> failures=<n>} and the failures, then waits for
 * stdin to close (so that background give-backs still run while the test looks at Redis) and exits
 * 0, or 1 when a check failed.
 */
public final class ChurnWorker {

    private ChurnWorker() {}

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String[] names = args[1].split(",");
        int threads = Integer.parseInt(args[2]);
        long runNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[3]));
        Path output = Path.of(args[4]);
        long seed = Long.parseLong(args[5]);
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        LockListener lossAlarm = new LockListener() {
            @Override
            public void onLeaseLost(LockInfo lock, String reason) {
                failures.add("lease of " + lock.key() + " reported lost: " + reason);
            }
        };
        AtomicLong holds = new AtomicLong();
        AtomicLong unavailable = new AtomicLong();
        AtomicLong busy = new AtomicLong();
        RedisClient redis = RedisClient.create(uri);
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (LockClient client = LockClient.create(
                        RedisURI.create(uri),
                        LockClientOptions.builder().listener(lossAlarm).build());
                PrintWriter out = new PrintWriter(Files.newBufferedWriter(output, StandardCharsets.UTF_8))) {
            // Each thread's own connection for TIME and the checks, opened before the killing starts.
            List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                connections.add(redis.connect());
            }
            ChildMain.readyThenGo(stdin);
            long deadline = System.nanoTime() + runNanos;
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Random random = new Random(seed * 31 + t);
                StatefulRedisConnection<String, String> connection = connections.get(t);
                Thread worker = new Thread(
                        () -> {
                            try {
                                Churn churn = new Churn(
                                        client, connection.sync(), random, out, failures, holds, unavailable, busy);
                                while (System.nanoTime() - deadline < 0 && failures.isEmpty()) {
                                    churn.oneHold(names[random.nextInt(names.length)]);
                                }
                            } catch (Throwable e) {
                                fail(failures, "worker died: " + e);
                                e.printStackTrace(System.out);
                            } finally {
                                releaseAll(client, names); // after a failure: let the other threads finish
                            }
                        },
                        "churn-" + t);
                worker.start();
                workers.add(worker);
            }
            for (Thread worker : workers) {
                worker.join();
            }
            System.out.println("DONE holds=" + holds + " unavailable=" + unavailable + " busy=" + busy + " failures="
                    + failures.size());
            System.out.flush();
            while (stdin.readLine() != null) {
                // the test closes stdin once it has looked at Redis
            }
        } finally {
            ClientShutdown.shutdown(redis);
        }
        System.exit(failures.isEmpty() ? 0 : 1);
    }

    /** Records a failed check and prints it at once, so that it shows even when the run hangs afterwards. */
    public static void fail(ConcurrentLinkedQueue<String> failures, String what) {
        failures.add(what);
        System.out.println("FAILURE " + what);
        System.out.flush();
    }

    private static void releaseAll(LockClient client, String[] names) {
        for (String name : names) {
            RedisLock lock = client.getLock(name);
            try {
                while (lock.getHoldCount() > 0) {
                    lock.unlock();
                }
            } catch (RuntimeException e) {
                System.out.println("could not release " + name + " after a failure: " + e);
            }
        }
    }

    /** One thread's churn: its own owner id, its own connection for TIME and the checks. */
    private static final class Churn {
        private final LockClient client;
        private final RedisCommands<String, String> commands;
        private final Random random;
        private final PrintWriter out;
        private final ConcurrentLinkedQueue<String> failures;
        private final AtomicLong holds;
        private final AtomicLong unavailable;
        private final AtomicLong busy;
        private final String owner;

        @SuppressWarnings("deprecation") // Thread.getId: threadId() needs Java 19, we run on 17
        Churn(
                LockClient client,
                RedisCommands<String, String> commands,
                Random random,
                PrintWriter out,
                ConcurrentLinkedQueue<String> failures,
                AtomicLong holds,
                AtomicLong unavailable,
                AtomicLong busy) {
            this.client = client;
            this.commands = commands;
            this.random = random;
            this.out = out;
            this.failures = failures;
            this.holds = holds;
            this.unavailable = unavailable;
            this.busy = busy;
            this.owner = client.clientId() + ':' + Thread.currentThread().getId();
        }

        /** Takes {@code name}, re-enters and leaves it at random (up to 3 deep), and releases it. */
        void oneHold(String name) throws InterruptedException {
            RedisLock lock = client.getLock(name);
            String key = LockClientOptions.DEFAULT_KEY_PREFIX + "{" + name + "}";
            try {
                if (random.nextBoolean()) {
                    lock.lock();
                } else if (!lock.tryLock(Duration.ofSeconds(2))) {
                    busy.incrementAndGet();
                    check(
                            lock.getHoldCount() == 0,
                            name,
                            "hold count " + lock.getHoldCount() + " after tryLock returned false");
                    return;
                }
            } catch (LockUnavailableException e) {
                unavailable.incrementAndGet();
                check(
                        lock.getHoldCount() == 0,
                        name,
                        "hold count " + lock.getHoldCount() + " after the first lock failed: " + e);
                return;
            }
            long token = lock.currentFencingToken();
            long start = time();
            int depth = 1;
            boolean redisInStep = true;
            while (depth > 0) {
                check(lock.getHoldCount() == depth, name, "hold count " + lock.getHoldCount() + ", expected " + depth);
                check(lock.currentFencingToken() == token, name, "token changed while held");
                if (redisInStep) {
                    // The grant's owner in Redis: this thread's id, or that of the thread whose grant was handed
                    // on to it locally (lock cohorting); exactly one owner field either way.
                    String inRedis = read(() -> ownerCount(commands.hgetall(key)));
                    check(
                            Integer.toString(depth).equals(inRedis),
                            name,
                            "count in Redis " + inRedis + ", expected " + depth);
                }
                if (!failures.isEmpty()) {
                    return; // the run failed: the worker's loop ends and releases what it holds
                }
                boolean deeper =
                        depth < 3 && random.nextInt(3) < (depth == 1 ? 2 : 1); // 2/3 from depth 1, 1/3 from depth 2
                redisInStep = true;
                try {
                    if (deeper) {
                        lock.lock();
                        depth++;
                    } else {
                        if (depth == 1) {
                            long end = time();
                            synchronized (out) {
                                out.println(name + "," + token + "," + start + "," + end + "," + owner);
                            }
                            holds.incrementAndGet();
                        }
                        depth--;
                        lock.unlock();
                    }
                } catch (LockUnavailableException e) {
                    // Documented: Redis did not confirm in time. A failed re-entry leaves the count as it was; a
                    // failed release has dropped the local hold and retries in the background, so Redis may lag.
                    unavailable.incrementAndGet();
                    redisInStep = false;
                }
            }
            check(lock.getHoldCount() == 0, name, "hold count " + lock.getHoldCount() + " after the last unlock");
        }

        /** The hold count of the only owner field of a lock hash ('~' fields are not owners), or a description of what is there. */
        private static String ownerCount(java.util.Map<String, String> hash) {
            List<String> owners =
                    hash.keySet().stream().filter(f -> !f.startsWith("~")).toList();
            return owners.size() == 1 ? hash.get(owners.get(0)) : "owners " + owners;
        }

        private long time() {
            List<String> time = read(commands::time);
            return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
        }

        /** A read of this checker's own, retried while the killer resets its connection (reads are safe to repeat). */
        private static <T> T read(java.util.function.Supplier<T> command) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                try {
                    return command.get();
                } catch (io.lettuce.core.RedisException e) {
                    if (System.nanoTime() - deadline > 0) {
                        throw e;
                    }
                }
            }
        }

        private void check(boolean ok, String name, String what) {
            if (!ok) {
                fail(failures, owner + " on " + name + ": " + what);
            }
        }
    }
}
