package dev.distlock.core;

import org.jspecify.annotations.Nullable;

/**
 * One owner's hold on one Redis lock, as this client knows it: the lease state plus the lock's kind,
 * keys and its place in the local gate. The owner is a thread today; async callers will own a hold
 * through a handle.
 */
final class Hold extends LeaseState {

    final LockKind kind;
    final LockKeys keys;
    /** The local gate this hold took part in, until its last release; see {@link LocalGates}. */
    volatile LocalGates.Gate gate;
    /** Whether this hold owns its gate's permit (false when it went past an abandoned holder). */
    volatile boolean ownsPermit;

    /** A hold from {@code grant}, valid for {@code lease} from when the granting request was sent. */
    Hold(LockKind kind, LockInfo info, LockKeys keys, String owner, @Nullable Thread thread, Grant grant, Lease lease) {
        super(
                info,
                owner,
                thread,
                grant.token(),
                grant.grantId(),
                (int) grant.count(),
                lease,
                grant.sentNanos(),
                grant.sentNanos() + lease.nanos());
        this.kind = kind;
        this.keys = keys;
    }
}
