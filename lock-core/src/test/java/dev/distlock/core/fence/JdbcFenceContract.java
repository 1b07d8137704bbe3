package dev.distlock.core.fence;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** What every database must show of {@link JdbcFence}; each database's test says how to connect. */
abstract class JdbcFenceContract {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final AtomicInteger resources = new AtomicInteger();
    static LockClient instanceA;
    static LockClient instanceB;

    private final JdbcFence fence = new JdbcFence();

    /** A new connection to the database under test, in auto-commit mode. */
    abstract Connection connect() throws SQLException;

    @BeforeAll
    static void startInstances() {
        instanceA = LockClient.create(RedisURI.create(redis.server().uri()));
        instanceB = LockClient.create(RedisURI.create(redis.server().uri()));
    }

    @AfterAll
    static void stopInstances() {
        instanceA.close();
        instanceB.close();
    }

    private void createTables() throws SQLException {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            fence.createTable(c);
            s.execute("CREATE TABLE IF NOT EXISTS stock (sku VARCHAR(40) PRIMARY KEY, qty INT NOT NULL)");
        }
    }

    @Test
    void aPausedHoldersLateWriteIsRefusedAndTheNewHoldersKept() throws Exception {
        createTables();
        String sku = "sku-" + resources.incrementAndGet();
        RedisLock lockA = instanceA.getLock("stock:" + sku);
        RedisLock lockB = instanceB.getLock("stock:" + sku);
        assertThat(lockA.tryLock(Waits.GRANTED)).isTrue();
        long t1 = lockA.currentFencingToken();
        // A pauses past its lease: here its lock is taken from it, as an expired lease would be
        assertThat(instanceB.getLock("stock:" + sku).forceUnlock()).isTrue();
        assertThat(lockB.tryLock(Waits.GRANTED)).isTrue();
        long t2 = lockB.currentFencingToken();
        assertThat(t2).isGreaterThan(t1);
        write(sku, 7, t2);
        lockB.unlock();

        assertThatThrownBy(() -> write(sku, 99, t1))
                .isInstanceOf(FencedOffException.class)
                .hasMessageContaining("stock:" + sku)
                .hasMessageContaining(Long.toString(t1))
                .hasMessageContaining(Long.toString(t2))
                .satisfies(e -> assertThat(((FencedOffException) e).fence()).isEqualTo(t2));
        assertThat(quantity(sku)).isEqualTo(7);
        assertThat(storedToken("stock:" + sku)).isEqualTo(t2);
    }

    @Test
    void theSameTokenPassesAgainAndALargerOneRaisesTheFence() throws Exception {
        createTables();
        String resource = "stock:again-" + resources.incrementAndGet();
        try (Connection c = connect()) {
            fence.check(c, resource, 10); // first check: inserts the row
            fence.check(c, resource, 10); // re-entry keeps the token
            fence.check(c, resource, 11);
            assertThatThrownBy(() -> fence.check(c, resource, 10)).isInstanceOf(FencedOffException.class);
        }
        assertThat(storedToken(resource)).isEqualTo(11);
    }

    @Test
    void aRefusedCheckInsideATransactionLeavesItUsableForTheRollback() throws Exception {
        createTables();
        String resource = "stock:tx-" + resources.incrementAndGet();
        try (Connection c = connect()) {
            fence.check(c, resource, 20);
            c.setAutoCommit(false);
            fence.check(c, "stock:tx-new-" + resources.incrementAndGet(), 5); // insert under a savepoint
            assertThatThrownBy(() -> fence.check(c, resource, 19)).isInstanceOf(FencedOffException.class);
            c.rollback();
        }
        assertThat(storedToken(resource)).isEqualTo(20);
    }

    @Test
    void aTableNameThatIsNoPlainSqlNameIsRefused() {
        assertThatThrownBy(() -> new JdbcFence("fence; DROP TABLE stock"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a plain SQL name");
    }

    /** One holder's transaction: the fence check, then the write, committed together. */
    private void write(String sku, int qty, long token) throws SQLException {
        try (Connection c = connect()) {
            c.setAutoCommit(false);
            try {
                fence.check(c, "stock:" + sku, token);
                try (PreparedStatement delete = c.prepareStatement("DELETE FROM stock WHERE sku = ?");
                        PreparedStatement insert = c.prepareStatement("INSERT INTO stock (sku, qty) VALUES (?, ?)")) {
                    delete.setString(1, sku);
                    delete.executeUpdate();
                    insert.setString(1, sku);
                    insert.setInt(2, qty);
                    insert.executeUpdate();
                }
                c.commit();
            } catch (SQLException | RuntimeException e) {
                c.rollback();
                throw e;
            }
        }
    }

    private int quantity(String sku) throws SQLException {
        return queryLong("SELECT qty FROM stock WHERE sku = ?", sku).intValue();
    }

    private long storedToken(String resource) throws SQLException {
        return queryLong("SELECT token FROM distlock_fence WHERE resource = ?", resource);
    }

    private Long queryLong(String sql, String arg) throws SQLException {
        try (Connection c = connect();
                PreparedStatement q = c.prepareStatement(sql)) {
            q.setString(1, arg);
            try (ResultSet row = q.executeQuery()) {
                assertThat(row.next()).as("a row for %s", arg).isTrue();
                return row.getLong(1);
            }
        }
    }
}
