package dev.distlock.core.internal.redlock;

import dev.distlock.core.LockInfo;
import dev.distlock.core.RedLockClient;
import dev.distlock.core.internal.lease.Lease;
import dev.distlock.core.internal.lease.LeaseState;
import dev.distlock.core.internal.redis.LockKeys;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One thread's hold on a RedLock, as its {@link RedLockClient} knows it: the lease state plus the
 * lock's keys on every node. Re-entry is counted here only: every node keeps a hold count of one, so
 * the last local release frees them all at once. Valid until a majority of nodes may have let the
 * lease run out, with the clock drift allowance taken off.
 */
public final class RedLockHold extends LeaseState {

    final List<LockKeys> keys;

    RedLockHold(
            LockInfo info,
            List<LockKeys> keys,
            String owner,
            @Nullable Thread thread,
            String grantId,
            long token,
            Lease lease,
            long sentNanos,
            long validUntilNanos) {
        super(info, owner, thread, token, grantId, 1, lease, sentNanos, validUntilNanos);
        this.keys = keys;
    }
}
