package dev.distlock.snippets.docs;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.fence.JdbcFence;
import dev.distlock.core.fence.RedisFence;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.ReactiveLockContext;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLostBeforeCommit;
import io.lettuce.core.api.StatefulRedisConnection;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.LocalDate;
import javax.sql.DataSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.reactive.TransactionalOperator;
import reactor.core.publisher.Mono;

/** docs/guarantees-at-the-resource.md. */
public class GuaranteesAtTheResource {

    private final JdbcTemplate jdbc;

    public GuaranteesAtTheResource(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    // docs:begin guarantees-at-the-resource.md 0
    @DistributedLock(key = "'order:' + #orderId")
    @Transactional
    public void ship(long orderId) {
        jdbc.update("UPDATE orders SET state = 'SHIPPED' WHERE id = ?", orderId);
    } // the commit happens here, checked: LockLostBeforeCommitException and a rollback if the lock was lost
    // docs:end

    // docs:begin guarantees-at-the-resource.md 1
    @DistributedLock(key = "'report:' + #day", onLostBeforeCommit = OnLostBeforeCommit.COMMIT_AND_REPORT)
    @Transactional
    public void summarize(LocalDate day) {
        jdbc.update("UPDATE daily_report SET done = TRUE WHERE day = ?", day); // safe to run twice
    }
    // docs:end

    /** The reactive transactions' snippets: R2DBC or any reactive transaction manager. */
    public static class ReactiveStock {

        /** A reactive repository of stock counts. */
        public interface Stock {
            Mono<Void> decrement(String sku);

            Mono<Void> add(String sku, int count);
        }

        private final Stock stock;
        private final TransactionalOperator transactions;

        public ReactiveStock(Stock stock, TransactionalOperator transactions) {
            this.stock = stock;
            this.transactions = transactions;
        }

        // docs:begin guarantees-at-the-resource.md reactive 0
        @DistributedLock(key = "'stock:' + #sku")
        @Transactional
        public Mono<Void> book(String sku) {
            return stock.decrement(sku).then(ReactiveLockContext.checkBeforeCommit());
        }
        // docs:end

        // docs:begin guarantees-at-the-resource.md reactive 1
        @DistributedLock(key = "'stock:' + #sku")
        public Mono<Void> restock(String sku, int count) {
            return transactions.transactional(stock.add(sku, count).then(ReactiveLockContext.checkBeforeCommit()));
        }
        // docs:end
    }

    // docs:begin guarantees-at-the-resource.md 2
    @DistributedLock(key = "'order:' + #orderId")
    @Transactional
    public void pay(long orderId) {
        LockContext.fence().check("order:" + orderId); // FencedOffException if a newer holder has written
        jdbc.update("UPDATE orders SET state = 'PAID' WHERE id = ?", orderId);
    }
    // docs:end

    // docs:begin guarantees-at-the-resource.md 3
    @DistributedLock(key = "'price:' + #sku")
    public void publishPrice(String sku, String price) {
        LockContext.fence().set("price:" + sku, price); // written only if no newer holder has written it
    }
    // docs:end

    public void plainJava(LockClient client, DataSource dataSource) throws SQLException, InterruptedException {
        // docs:begin guarantees-at-the-resource.md 4
        JdbcFence fence = new JdbcFence(); // table distlock_fence; fence.createTableSql() for your migration
        RedisLock lock = client.getLock("order:42");
        if (lock.tryLock(Duration.ofSeconds(2))) {
            try (Connection c = dataSource.getConnection()) {
                c.setAutoCommit(false);
                fence.check(c, "order:42", lock.currentFencingToken());
                // ... the writes to order 42, on c ...
                c.commit();
            } finally {
                lock.unlock();
            }
        }
        // docs:end
    }

    public void plainRedis(RedisLock lock, StatefulRedisConnection<String, String> connection) {
        // docs:begin guarantees-at-the-resource.md 5
        RedisFence fence = new RedisFence(connection.sync()); // Lettuce, standalone or Cluster
        fence.set("price:sku-1", "9.90", lock.currentFencingToken());
        // docs:end
    }
}
