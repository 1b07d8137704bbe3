package dev.distlock.snippets.docs;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedLockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.core.RedisReadWriteLock;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/** docs/plain-java.md. */
public class PlainJavaGuide {

    public void basics() throws InterruptedException {
        // docs:begin plain-java.md 0
        try (LockClient client = LockClient.create(RedisURI.create("redis://localhost:6379"))) {
            RedisLock lock = client.getLock("order:42");
            if (lock.tryLock(Duration.ofSeconds(2))) { // watchdog lease, renewed while held
                try {
                    long token = lock.currentFencingToken();
                    // ... the work, which hands the token to what it writes
                } finally {
                    lock.unlock();
                }
            }
        }
        // docs:end
    }

    public void kinds(LockClient client, LockClient clientA, LockClient clientB, long from, long to) {
        // docs:begin plain-java.md 1
        RedisLock fair = client.getFairLock("payout-batch");
        // docs:end
        // docs:begin plain-java.md 2
        RedisReadWriteLock catalog = client.getReadWriteLock("catalog");
        catalog.readLock().lock(); // many at once
        catalog.writeLock().lock(); // alone
        // docs:end
        // docs:begin plain-java.md 3
        RedisMultiLock transfer = client.getMultiLock("account:" + from, "account:" + to);
        RedisMultiLock mixed = RedisMultiLock.of(List.of(clientA.getLock("a"), clientB.getLock("b"))); // any RedisLocks
        // docs:end
    }

    public void async(LockClient client, long orderId) {
        // docs:begin plain-java.md 4
        RedisLock lock = client.getLock("order:42");
        lock.tryLockAsync(Duration.ofSeconds(2)) // CompletionStage<Optional<LockHandle>>
                .thenCompose(handle -> handle.isPresent()
                        ? pay(orderId, handle.get().fencingToken())
                                .whenComplete((result, error) -> handle.get().unlockAsync())
                        : CompletableFuture.<Receipt>failedFuture(new IllegalStateException("order 42 is busy")));
        // docs:end
    }

    public void redLock(RedisURI uriA, RedisURI uriB, RedisURI uriC) {
        // docs:begin plain-java.md 5
        try (RedLockClient redLock = RedLockClient.connect(List.of(uriA, uriB, uriC), LockClientOptions.defaults())) {
            RedisLock lock = redLock.getLock("nightly-report");
            // ... lock, work, unlock as with a LockClient's locks
        }
        // docs:end
    }

    CompletableFuture<Receipt> pay(long orderId, long token) {
        return CompletableFuture.completedFuture(new Receipt(orderId));
    }
}
