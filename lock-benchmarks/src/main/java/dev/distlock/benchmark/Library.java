package dev.distlock.benchmark;

import dev.distlock.core.LockClient;
import io.lettuce.core.RedisURI;
import java.util.Arrays;
import java.util.Locale;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/**
 * The libraries under comparison. Each is opened exactly as its documentation's minimal set-up does,
 * with no tuning: the point is what a user gets out of the box.
 */
enum Library {
    DISTLOCK("distlock", "distlock") {
        @Override
        LockProvider open(String host, int port) {
            // Defaults: 30 s watchdog lease, one shared command connection plus one pub/sub connection.
            LockClient client = LockClient.create(RedisURI.create(host, port));
            return LockProvider.of(client::getLock, client::close);
        }
    },

    REDISSON("redisson", "Redisson") {
        @Override
        LockProvider open(String host, int port) {
            // Defaults: connection pool, 30 s lock watchdog (lock() without leaseTime), pub/sub wake-ups.
            Config config = new Config();
            config.useSingleServer().setAddress("redis://" + host + ":" + port);
            RedissonClient client = Redisson.create(config);
            return LockProvider.of(client::getLock, client::shutdown);
        }
    },

    SPRING_INTEGRATION("spring", "RedisLockRegistry") {
        @Override
        LockProvider open(String host, int port) {
            // Defaults: 60 s expiry without renewal, spin lock type (retries every 100 ms), shared
            // native Lettuce connection of the factory.
            LettuceConnectionFactory factory =
                    new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
            factory.afterPropertiesSet();
            factory.start();
            RedisLockRegistry registry = new RedisLockRegistry(factory, "bench-registry");
            return LockProvider.of(registry::obtain, () -> {
                registry.destroy();
                factory.destroy();
            });
        }
    };

    /** Name used on the command line and in the child-JVM protocol. */
    final String id;
    /** Name printed in the report. */
    final String label;

    Library(String id, String label) {
        this.id = id;
        this.label = label;
    }

    abstract LockProvider open(String host, int port);

    static Library byId(String id) {
        String wanted = id.trim().toLowerCase(Locale.ROOT);
        return Arrays.stream(values())
                .filter(l ->
                        l.id.equals(wanted) || l.label.toLowerCase(Locale.ROOT).equals(wanted))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "Unknown library '" + id + "'; known: distlock, redisson, spring"));
    }
}
