package dev.distlock.benchmark;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.core.reactor.ReactiveLocks;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Lock;
import reactor.core.publisher.Mono;

/**
 * distlock with its defaults (lock cohorting on: 64 local hand-offs within 20 ms): one shared command connection, one for renewals, one for pub/sub, watchdog
 * lease (30 s unless the held-locks scenario sets another). A listener counts lease losses; it is
 * what an application with metrics has, and costs a no-op call per event.
 */
final class DistlockProvider implements LockProvider {

    /** "For as long as it takes" for the reactive cycle, which needs a bound. */
    private static final Duration WAIT = Duration.ofMinutes(5);

    private final LockClient client;
    private final LongAdder leaseLost = new LongAdder();

    DistlockProvider(String host, int port, Duration watchdogLease) {
        LockClientOptions options = LockClientOptions.builder()
                .watchdogLease(watchdogLease)
                .grantsInMessages(!"false".equals(System.getProperty(HandOffBenchmark.GRANTS_PROPERTY)))
                .listener(new LockListener() {
                    @Override
                    public void onLeaseLost(LockInfo lock, String reason) {
                        leaseLost.increment();
                    }
                })
                .build();
        this.client = LockClient.create(RedisURI.create(host, port), options);
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
        // Handles own their holds, so the owner id is not needed.
        return AsyncCycle.of(client.getLock(key)::lockAsync, LockHandle::unlockAsync);
    }

    @Override
    public AsyncCycle reactiveCycle(String key, long owner) {
        RedisLock lock = client.getLock(key);
        return work -> ReactiveLocks.usingLock(lock, WAIT, handle -> Mono.fromRunnable(work))
                .then()
                .toFuture();
    }

    @Override
    public CompletionStage<Hold> hold(String key) {
        return client.getLock(key).lockAsync().thenApply(handle -> handle::unlockAsync);
    }

    @Override
    public String redisKey(String key) {
        return client.options().keyPrefix() + "{" + key + "}";
    }

    @Override
    public long leaseLossesReported() {
        return leaseLost.sum();
    }

    @Override
    public void close() {
        client.close();
    }
}
