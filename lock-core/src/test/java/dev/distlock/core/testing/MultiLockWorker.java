package dev.distlock.core.testing;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.core.internal.redis.ClientShutdown;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.Arrays;

/**
 * Child process of {@link MultiLockTest}: locks the given names as one multi-lock, in the order
 * given, with {@code lock()} (no time-out: a deadlock would hang), and increments a counter by
 * GET then SET inside. Arguments: redis URI, counter key, iterations, names... Prints
 * {@code DONE <n>} and exits 0.
 */
public final class MultiLockWorker {

    private MultiLockWorker() {}

    public static void main(String[] args) {
        String uri = args[0];
        String counterKey = args[1];
        int iterations = Integer.parseInt(args[2]);
        String[] names = Arrays.copyOfRange(args, 3, args.length);
        RedisClient redis = RedisClient.create(uri);
        try (LockClient client = LockClient.create(RedisURI.create(uri));
                StatefulRedisConnection<String, String> connection = redis.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            RedisMultiLock lock = client.getMultiLock(names);
            for (int i = 0; i < iterations; i++) {
                lock.lock();
                try {
                    String value = commands.get(counterKey);
                    commands.set(counterKey, Long.toString(value == null ? 1 : Long.parseLong(value) + 1));
                } finally {
                    lock.unlock();
                }
            }
            System.out.println("DONE " + iterations);
        } finally {
            ClientShutdown.shutdown(redis);
        }
        System.exit(0);
    }
}
