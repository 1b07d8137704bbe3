package dev.distlock.snippets.docs;

import dev.distlock.spring.LockTemplate;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;

/** docs/migrating-from-spring-integration.md: RedisLockRegistry before, distlock after. */
public class MigratingFromSpringIntegration {

    private final RedisLockRegistry lockRegistry;
    private final LockTemplate lockTemplate;

    public MigratingFromSpringIntegration(RedisLockRegistry lockRegistry, LockTemplate lockTemplate) {
        this.lockRegistry = lockRegistry;
        this.lockTemplate = lockTemplate;
    }

    // docs:begin migrating-from-spring-integration.md 0
    @Bean
    RedisLockRegistry lockRegistry(RedisConnectionFactory connectionFactory) {
        return new RedisLockRegistry(connectionFactory, "orders", 60_000); // registry key, expire after 60 s
    }
    // docs:end

    public void before(long orderId) throws InterruptedException {
        // docs:begin migrating-from-spring-integration.md 1
        Lock lock = lockRegistry.obtain("order:" + orderId);
        if (lock.tryLock(2, TimeUnit.SECONDS)) {
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

    public Receipt after(long orderId) {
        // docs:begin migrating-from-spring-integration.md 2
        // LockAcquisitionException when busy
        Receipt receipt =
                lockTemplate.withName("orders").execute("order:" + orderId, Duration.ofSeconds(2), () -> pay(orderId));
        // docs:end
        return receipt;
    }

    Receipt pay(long orderId) {
        return new Receipt(orderId);
    }
}
