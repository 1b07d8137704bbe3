package dev.distlock.spring.actuate;

import dev.distlock.spring.execution.ActiveHolds;
import dev.distlock.spring.execution.LockSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

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
        this(holds, mode, source, Map::of, null);
    }

    /**
     * @param leading the leader roles this instance leads now, with their terms (the starter's {@code Leadership})
     * @param allInstances reads every instance's holders from Redis; null in local mode
     */
    public ForceUnlockDistributedLocksEndpoint(
            ActiveHolds holds,
            String mode,
            LockSource source,
            Supplier<Map<String, Long>> leading,
            @Nullable AllInstancesHolders allInstances) {
        super(holds, mode, source, leading, allInstances);
        this.source = source;
    }

    /**
     * {@code POST /actuator/distributedlocks} with {@code {"key": "order:42", "type": "REENTRANT"}}. A
     * request without either field, or with an unknown type, gets 400 with a body naming the field.
     *
     * @param key the lock's key as resolved (not the declared name)
     * @param type REENTRANT, FAIR, READ or WRITE (either side frees the whole read/write lock), or REDLOCK
     */
    @WriteOperation
    // Both parameters optional (jspecify for Boot 4, Spring's for Boot 3.5): Actuator would answer a missing one
    // with a bare 400 whose body does not name it.
    @SuppressWarnings("deprecation")
    public WebEndpointResponse<ForceUnlockResult> forceUnlock(
            @org.springframework.lang.Nullable @Nullable String key,
            @org.springframework.lang.Nullable @Nullable String type) {
        String kind = type == null ? "" : type.trim().toUpperCase(Locale.ROOT);
        List<String> missing = new ArrayList<>();
        if (key == null || key.isBlank()) {
            missing.add("'key'");
        }
        if (type == null || type.isBlank()) {
            missing.add("'type'");
        }
        String example = ", e.g. {\"key\": \"order:42\", \"type\": \"REENTRANT\"}";
        if (!missing.isEmpty()) {
            return badRequest(
                    key,
                    kind,
                    "Missing " + String.join(" and ", missing)
                            + ": give the lock's key as resolved and its type, one of " + TYPES + example);
        }
        if (!TYPES.contains(kind)) {
            return badRequest(key, kind, "Unknown 'type' " + type + ": give one of " + TYPES + example);
        }
        boolean deleted = source.forceUnlock(key, kind);
        log.warn(
                "Force-unlock of {} lock '{}' through /actuator/{}: {}",
                kind,
                key,
                ID,
                deleted ? "deleted; its holder, if still running, is no longer protected" : "it was not held");
        return new WebEndpointResponse<>(new ForceUnlockResult(key, kind, deleted, deleted ? "deleted" : "not held"));
    }

    private static WebEndpointResponse<ForceUnlockResult> badRequest(@Nullable String key, String kind, String detail) {
        return new WebEndpointResponse<>(
                new ForceUnlockResult(key, kind, false, detail), WebEndpointResponse.STATUS_BAD_REQUEST);
    }

    /** What a force-unlock did. */
    public record ForceUnlockResult(String key, String type, boolean deleted, String detail) {}
}
