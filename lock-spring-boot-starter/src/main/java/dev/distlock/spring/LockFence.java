package dev.distlock.spring;

import java.time.Duration;

/**
 * The fence of the lock held by the {@code @DistributedLock} method (or {@code LockTemplate} call) running on
 * this thread: writes that the store itself refuses when a newer holder of the lock has written since, so a
 * holder whose lock was lost while it paused cannot overwrite the newer holder's work. Get it from
 * {@link LockContext#fence()}.
 *
 * <pre>{@code
 * @DistributedLock(key = "'order:' + #id")
 * @Transactional
 * public void ship(long id) {
 *     LockContext.fence().check("order:" + id); // refused: FencedOffException, the transaction rolls back
 *     orders.markShipped(id);
 * }
 * }</pre>
 *
 * The JDBC fence is lock-core's {@code dev.distlock.core.fence.JdbcFence} on the application's
 * {@code DataSource}, table {@code distlock.fence.table}; the Redis fence is its {@code RedisFence} on the
 * application's Redis.
 */
public final class LockFence {

    private final long token;
    private final Stores stores;

    LockFence(long token, Stores stores) {
        this.token = token;
        this.stores = stores;
    }

    /** The fencing token the fence presents. */
    public long token() {
        return token;
    }

    /**
     * Raises the fence of {@code resource} to this lock's token in the current transaction (on its connection
     * of the application's {@code DataSource}), so the write commits with it: call it in the
     * {@code @Transactional} method the lock wraps, before or after the write. The same token passes again.
     *
     * @throws dev.distlock.core.fence.FencedOffException when a newer holder has written: the transaction rolls back
     * @throws IllegalStateException when no transaction is active, or there is no single {@code DataSource}
     */
    public void check(String resource) {
        stores.check(resource, token);
    }

    /**
     * Writes {@code value} at {@code key} in the application's Redis only if no newer holder has written
     * it; no expiry.
     *
     * @throws dev.distlock.core.fence.FencedOffException when a newer holder has written {@code key}
     */
    public void set(String key, String value) {
        stores.set(key, value, token, Duration.ZERO);
    }

    /** As {@link #set(String, String)}, the value and its fence expiring after {@code ttl}. */
    public void set(String key, String value, Duration ttl) {
        stores.set(key, value, token, ttl);
    }

    /** Where the starter keeps fences (the application's DataSource and Redis). Infrastructure of the starter, not API. */
    public interface Stores {

        /** No store: every fence fails with an explanation (locks switched off, or fences not configured). */
        Stores NONE = new Stores() {
            @Override
            public void check(String resource, long token) {
                throw new IllegalStateException("no fence store is configured: distlock's auto-configuration provides"
                        + " one; with distlock.enabled=false there is no lock, and so no fence");
            }

            @Override
            public void set(String key, String value, long token, Duration ttl) {
                check(key, token);
            }
        };

        /** Raises the JDBC fence of {@code resource} to {@code token} in the current transaction. */
        void check(String resource, long token);

        /** Writes {@code value} at {@code key} in Redis under {@code token}. */
        void set(String key, String value, long token, Duration ttl);
    }
}
