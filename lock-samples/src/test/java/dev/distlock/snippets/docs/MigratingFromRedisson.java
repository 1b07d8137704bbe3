package dev.distlock.snippets.docs;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.annotation.DistributedLock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;

/** docs/migrating-from-redisson.md: Redisson before, distlock after. */
public class MigratingFromRedisson {

    private final RedissonClient redisson;
    private final LockClient lockClient;

    public MigratingFromRedisson(RedissonClient redisson, LockClient lockClient) {
        this.redisson = redisson;
        this.lockClient = lockClient;
    }

    public void before(long orderId) throws InterruptedException {
        // docs:begin migrating-from-redisson.md 0
        RLock lock = redisson.getLock("order:" + orderId);
        if (lock.tryLock(2, TimeUnit.SECONDS)) { // no lease given: Redisson's watchdog renews it
            try {
                pay(orderId);
            } finally {
                lock.unlock();
            }
        } else {
            throw new OrderBusyException(orderId);
        }
        // docs:end
    }

    // docs:begin migrating-from-redisson.md 1
    @DistributedLock(key = "'order:' + #orderId", waitTime = "2s")
    public Receipt pay(long orderId) {
        return new Receipt(orderId); // the payment itself
    }
    // docs:end

    public void plainJava(long orderId) throws InterruptedException {
        // docs:begin migrating-from-redisson.md 2
        RedisLock lock = lockClient.getLock("order:" + orderId);
        if (lock.tryLock(Duration.ofSeconds(2))) { // watchdog lease, renewed while held
            try {
                pay(orderId);
            } finally {
                lock.unlock();
            }
        } else {
            throw new OrderBusyException(orderId);
        }
        // docs:end
    }
}
