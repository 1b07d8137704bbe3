/**
 * Fencing at the resource: writes that the store itself refuses when they carry a fencing token older
 * than one it has already accepted, so that a holder whose lock was lost (a pause longer than its lease,
 * a lost renewal) cannot overwrite a newer holder's work. {@link dev.distlock.core.fence.JdbcFence} for
 * JDBC databases (plain {@code java.sql}, in the write's own transaction), {@link dev.distlock.core.fence.RedisFence}
 * for values kept in Redis (one conditional script).
 */
@NullMarked
package dev.distlock.core.fence;

import org.jspecify.annotations.NullMarked;
