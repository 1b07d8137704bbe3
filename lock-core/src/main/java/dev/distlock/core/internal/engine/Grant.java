package dev.distlock.core.internal.engine;

import java.util.List;

/**
 * One acquire script's answer, decoded once.
 *
 * @param granted whether the lock was granted
 * @param value the fencing token when granted, else how many ms the lock stays busy at most (-1: no TTL)
 * @param count the hold count when granted; when not, the lock's fencing counter the attempt saw (fair locks; 0
 *     for other kinds)
 * @param grantId the id the grant is known by in Redis
 * @param sentNanos when the request was sent (System.nanoTime)
 */
public record Grant(boolean granted, long value, long count, String grantId, long sentNanos) {

    public static Grant of(List<Object> reply, String grantId, long sentNanos) {
        return new Grant((Long) reply.get(0) == 1L, (Long) reply.get(1), (Long) reply.get(2), grantId, sentNanos);
    }

    public long token() {
        return value;
    }

    long fenceSeen() {
        return count;
    }

    long ttlMs() {
        return value;
    }
}
