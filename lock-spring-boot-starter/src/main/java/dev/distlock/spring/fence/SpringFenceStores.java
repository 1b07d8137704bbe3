package dev.distlock.spring.fence;

import dev.distlock.core.fence.JdbcFence;
import dev.distlock.core.fence.RedisFence;
import dev.distlock.spring.LockFence;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.ClassUtils;
import org.springframework.util.function.SingletonSupplier;

/**
 * The fences of the application's stores: JDBC on the connection the current Spring transaction holds of
 * the application's {@code DataSource} (as {@code JdbcTemplate} and JPA use it), Redis through Spring Data
 * Redis. Infrastructure of the starter, not API.
 */
public final class SpringFenceStores implements LockFence.Stores {

    @SuppressWarnings("rawtypes")
    private static final RedisScript<List> SCRIPT = new DefaultRedisScript<>(RedisFence.SCRIPT, List.class);

    private final Supplier<@Nullable DataSource> dataSource;
    private final Supplier<@Nullable StringRedisTemplate> redis;
    private final JdbcFence jdbc;

    /**
     * @param dataSource the application's only DataSource, or null when there is none or several
     * @param redis the application's Redis, or null when there is none
     * @param table the fence table (distlock.fence.table)
     */
    public SpringFenceStores(
            Supplier<@Nullable DataSource> dataSource, Supplier<@Nullable RedisConnectionFactory> redis, String table) {
        this.dataSource = dataSource;
        this.redis = SingletonSupplier.ofNullable(() -> {
            RedisConnectionFactory factory = redis.get();
            return factory == null ? null : new StringRedisTemplate(factory);
        });
        this.jdbc = new JdbcFence(table);
    }

    @Override
    public void check(String resource, long token) {
        if (!ClassUtils.isPresent(
                "org.springframework.jdbc.datasource.DataSourceUtils",
                getClass().getClassLoader())) {
            throw new IllegalStateException("LockContext.fence().check(\"" + resource
                    + "\") needs spring-jdbc on the class" + " path (spring-boot-starter-jdbc or -data-jpa)");
        }
        DataSource source = dataSource.get();
        if (source == null) {
            throw new IllegalStateException(
                    "LockContext.fence().check(\"" + resource + "\") needs one DataSource bean (there"
                            + " is none, or several): use dev.distlock.core.fence.JdbcFence on your connection instead");
        }
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("LockContext.fence().check(\"" + resource + "\") ran outside a transaction:"
                    + " call it inside the @Transactional method the lock wraps, so that the fence and the write commit"
                    + " together");
        }
        OnTransactionConnection.check(jdbc, source, resource, token);
    }

    /** Apart, so that spring-jdbc is loaded only once it is known to be there. */
    private static final class OnTransactionConnection {
        static void check(JdbcFence jdbc, DataSource source, String resource, long token) {
            Connection connection = DataSourceUtils.getConnection(source);
            try {
                jdbc.check(connection, resource, token);
            } catch (SQLException e) {
                throw new IllegalStateException(
                        "the fence of '" + resource + "' could not be checked: " + e.getMessage(), e);
            } finally {
                DataSourceUtils.releaseConnection(connection, source);
            }
        }
    }

    @Override
    public void set(String key, String value, long token, Duration ttl) {
        StringRedisTemplate template = redis.get();
        if (template == null) {
            throw new IllegalStateException(
                    "LockContext.fence().set(\"" + key + "\", ...) needs a RedisConnectionFactory bean; there is none");
        }
        List<?> reply = template.execute(
                SCRIPT,
                List.of(key, RedisFence.fenceKey(key)),
                Long.toString(token),
                value,
                Long.toString(RedisFence.ttlMillis(ttl)));
        RedisFence.accept(key, token, reply);
    }
}
