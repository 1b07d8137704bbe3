package dev.distlock.benchmark;

import java.util.List;
import java.util.concurrent.locks.Lock;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;

/**
 * Spring Integration's RedisLockRegistry with its defaults (60 s expiry without renewal, the shared
 * native Lettuce connection of the factory) in one of its two lock types: SPIN, the default, retries
 * every 100 ms; PUB_SUB is woken by a message on release. It has no fair, async or reactive locks.
 */
final class SpringProvider implements LockProvider {

    private final LettuceConnectionFactory factory;
    private final RedisLockRegistry registry;

    SpringProvider(String host, int port, RedisLockType type) {
        this(new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port)), type);
    }

    /** On the Redis Cluster of {@code nodes} ({@code host:port}). */
    SpringProvider(List<String> nodes, RedisLockType type) {
        this(new LettuceConnectionFactory(new RedisClusterConfiguration(nodes)), type);
    }

    private SpringProvider(LettuceConnectionFactory factory, RedisLockType type) {
        this.factory = factory;
        factory.afterPropertiesSet();
        factory.start();
        registry = new RedisLockRegistry(factory, "bench-registry");
        registry.setRedisLockType(type);
    }

    @Override
    public Lock lock(String key) {
        return registry.obtain(key);
    }

    @Override
    public void close() {
        registry.destroy();
        factory.destroy();
    }
}
