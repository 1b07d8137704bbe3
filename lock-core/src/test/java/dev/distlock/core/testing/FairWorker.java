package dev.distlock.core.testing;

import dev.distlock.core.RedisLock;
import dev.distlock.core.TestAccess;
import dev.distlock.core.internal.engine.FairKind;
import java.time.Duration;

/**
 * Child process of {@link FairLockAcrossProcessesTest}: one thread waits for a fair lock and, once
 * granted, appends its id to a Redis list, so the list shows the order of grants across processes.
 *
 * <p>Arguments: redis URI, lock name, order key, id, recheck ms, margin ms. Prints {@code READY},
 * waits for {@code GO} on stdin, then locks (waiting up to 60 s), appends, unlocks, prints
 * {@code DONE} and exits 0, or prints {@code FAILED <error>} and exits 1.
 */
public final class FairWorker {

    private FairWorker() {}

    public static void main(String[] args) {
        String uri = args[0];
        String lockName = args[1];
        String orderKey = args[2];
        String id = args[3];
        FairKind kind =
                new FairKind(Duration.ofMillis(Long.parseLong(args[4])), Duration.ofMillis(Long.parseLong(args[5])));
        ChildMain.run(uri, (client, redis) -> {
            RedisLock lock = TestAccess.getLock(client, kind, lockName, lockName);
            ChildMain.readyThenGo();
            if (!lock.tryLock(Duration.ofSeconds(60))) {
                throw new IllegalStateException("fair lock not acquired within 60 s");
            }
            try {
                redis.rpush(orderKey, id);
            } finally {
                lock.unlock();
            }
            return "DONE";
        });
    }
}
