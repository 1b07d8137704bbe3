package dev.distlock.benchmark;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.locks.Lock;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RLockReactive;
import org.redisson.api.RedissonClient;
import org.redisson.api.RedissonReactiveClient;
import org.redisson.config.Config;
import org.redisson.config.TransportMode;
import reactor.core.publisher.Mono;

/**
 * Redisson with its defaults (connection pool, pub/sub wake-ups, lock watchdog for locks taken
 * without a lease), optionally on Netty's native epoll transport, which Redisson users on Linux can
 * switch on with {@code TransportMode.EPOLL} and the netty-transport-native-epoll jar.
 */
final class RedissonProvider implements LockProvider {

    /** The owner id of the held-locks scenario's holds: any fixed id, no thread of it is ever asked. */
    private static final long HOLDER = Long.MAX_VALUE - 1;

    private final RedissonClient client;
    private final RedissonReactiveClient reactive;

    RedissonProvider(String host, int port, boolean epoll, Duration watchdogLease) {
        Config config = config(epoll, watchdogLease);
        config.useSingleServer().setAddress("redis://" + host + ":" + port);
        this.client = Redisson.create(config);
        this.reactive = client.reactive();
    }

    /** On the Redis Cluster of {@code nodes} ({@code redis://host:port}), with Redisson's cluster defaults. */
    RedissonProvider(List<String> nodes, boolean epoll, Duration watchdogLease) {
        Config config = config(epoll, watchdogLease);
        config.useClusterServers().addNodeAddress(nodes.toArray(String[]::new));
        this.client = Redisson.create(config);
        this.reactive = client.reactive();
    }

    private static Config config(boolean epoll, Duration watchdogLease) {
        Config config = new Config();
        if (epoll) {
            config.setTransportMode(TransportMode.EPOLL);
        }
        config.setLockWatchdogTimeout(watchdogLease.toMillis());
        return config;
    }

    @Override
    public Lock lock(String key) {
        return client.getLock(key);
    }

    @Override
    public Lock fairLock(String key) {
        return client.getFairLock(key);
    }

    @Override
    public AsyncCycle asyncCycle(String key, long owner) {
        // RLock's async methods take the owner as a "thread id"; one per caller, as Redisson's docs advise.
        RLock lock = client.getLock(key);
        return AsyncCycle.of(() -> lock.lockAsync(owner), locked -> lock.unlockAsync(owner));
    }

    @Override
    public AsyncCycle reactiveCycle(String key, long owner) {
        RLockReactive lock = reactive.getLock(key);
        return work -> lock.lock(owner)
                .then(Mono.fromRunnable(work))
                .then(Mono.defer(() -> lock.unlock(owner)))
                .toFuture();
    }

    @Override
    public CompletionStage<Hold> hold(String key) {
        RLock lock = client.getLock(key);
        return lock.lockAsync(HOLDER).thenApply(locked -> () -> lock.unlockAsync(HOLDER));
    }

    @Override
    public void close() {
        client.shutdown();
    }
}
