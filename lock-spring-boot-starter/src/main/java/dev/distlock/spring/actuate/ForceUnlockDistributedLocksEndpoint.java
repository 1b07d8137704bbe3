package dev.distlock.spring.actuate;

import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.LockSource;
import java.util.Locale;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * {@link DistributedLocksEndpoint} plus a write operation that deletes a lock whoever holds it.
 * Dangerous: the holder keeps running without mutual exclusion until it notices (at its next
 * renewal or its unlock), so two instances can do the protected work at once. Only present with
 * {@code distlock.actuator.force-unlock.enabled=true}.
 */
@Endpoint(id = DistributedLocksEndpoint.ID)
public class ForceUnlockDistributedLocksEndpoint extends DistributedLocksEndpoint {

    private static final Logger log = LoggerFactory.getLogger(ForceUnlockDistributedLocksEndpoint.class);
    private static final Set<String> TYPES = Set.of("REENTRANT", "FAIR", "READ", "WRITE", "REDLOCK");

    private final LockSource source;

    public ForceUnlockDistributedLocksEndpoint(ActiveHolds holds, String mode, LockSource source) {
        super(holds, mode, source);
        this.source = source;
    }

    /**
     * {@code POST /actuator/distributedlocks} with {@code {"key": "order:42", "type": "REENTRANT"}}.
     *
     * @param key the lock's key as resolved (not the declared name)
     * @param type REENTRANT, FAIR, READ or WRITE (either side frees the whole read/write lock), or REDLOCK
     */
    @WriteOperation
    public ForceUnlockResult forceUnlock(String key, String type) {
        String kind = type == null ? "" : type.trim().toUpperCase(Locale.ROOT);
        if (key == null || key.isBlank() || !TYPES.contains(kind)) {
            return new ForceUnlockResult(
                    key,
                    kind,
                    false,
                    "Give the lock's key and its type, one of " + TYPES
                            + ", e.g. {\"key\": \"order:42\", \"type\": \"REENTRANT\"}");
        }
        boolean deleted = source.forceUnlock(key, kind);
        log.warn(
                "Force-unlock of {} lock '{}' through /actuator/{}: {}",
                kind,
                key,
                ID,
                deleted ? "deleted; its holder, if still running, is no longer protected" : "it was not held");
        return new ForceUnlockResult(key, kind, deleted, deleted ? "deleted" : "not held");
    }

    /** What a force-unlock did. */
    public record ForceUnlockResult(String key, String type, boolean deleted, String detail) {}
}
