package dev.distlock.spring.transaction;

import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.redis.LockHashReader;
import dev.distlock.spring.redis.LockHashes;
import java.util.Map;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Whether a hold is still held, just before a commit: first this instance's lease clock, which knows a
 * lease that ran out or a renewal that failed; then Redis, since the clock cannot see a lock that was
 * force-unlocked, evicted or taken over meanwhile (it learns that at the next renewal, up to a third of
 * the lease later). One HGETALL per key, bounded by distlock.operation-timeout; a Redis that does not
 * answer cannot confirm the hold, which counts as lost. RedLocks (several masters) and local mode are
 * checked on the lease clock only.
 */
final class HoldConfirmation {

    private final ActiveHolds holds;
    private final @Nullable LockHashReader reader;
    private final Supplier<String> clientId;

    /** @param reader the application's Redis, or {@code null} to ask the lease clock only (local mode) */
    HoldConfirmation(ActiveHolds holds, @Nullable LockHashReader reader, Supplier<String> clientId) {
        this.holds = holds;
        this.reader = reader;
        this.clientId = clientId;
    }

    /** Why the hold is lost, or {@code null} when it is still held. */
    @Nullable
    String lostReason(ActiveHolds.Entry hold) {
        if (!holds.isListed(hold.id())) {
            return "the lock's work returned and released it before the transaction committed (a transaction begun"
                    + " inside the work must end inside it)";
        }
        if (!hold.isHeldLocally()) {
            return "its lease ran out or was lost (this instance's lease clock)";
        }
        if (reader == null || hold.request().redlock()) {
            return null;
        }
        for (Map.Entry<String, Long> key : hold.fencingTokens().entrySet()) {
            Map<String, String> fields;
            try {
                fields = reader.fields(key.getKey());
            } catch (IllegalStateException e) {
                return "Redis could not confirm the hold of '" + key.getKey() + "': " + e.getMessage();
            }
            if (!LockHashes.heldByClient(fields, hold.request().type(), clientId.get(), key.getValue())) {
                return fields.isEmpty()
                        ? "'" + key.getKey() + "' is no longer in Redis (force-unlocked, expired or evicted)"
                        : "'" + key.getKey() + "' is held by another owner in Redis";
            }
        }
        return null;
    }
}
