package dev.distlock.benchmark;

/**
 * The keys and arguments distlock sends to its acquire and release scripts for a watchdog lock taken
 * without a wait limit, with its defaults (checked with MONITOR), for the benchmark's runs of those
 * scripts outside distlock: the floor with distlock's scripts and the script costs.
 */
final class DistlockScriptCall {

    static final String LEASE_MS = "30000";
    static final String FENCE_TTL_MS = "86400000";
    static final String NOTE_TTL_MS = "10000";
    static final String TOKEN_BLOCK = "65";
    /** The wait distlock sends for a caller that waits without limit. */
    static final String WAIT_FOREVER_MS = Long.toString(Long.MAX_VALUE / 2 / 1_000_000);
    /** How long a last release would reserve the lock for another waiting client (none waits here). */
    static final String RESERVE_MS = "50";
    /** The longest TTL of a grant a last release makes to another client's waiter (none waits here). */
    static final String MESSAGE_GRANT_MS = "5000";
    /** A watchdog lease: a hold-at-least may keep the lock past the lease it has left (none is asked here). */
    static final String KEEP_PAST_LEASE = "1";

    private DistlockScriptCall() {}

    static String[] acquireKeys(String redisKey) {
        return new String[] {redisKey, redisKey + ":fence"};
    }

    /** A new hold's acquire: {@code owner} holds nothing yet, {@code grantId} names this request. */
    static String[] acquireArgs(String owner, String grantId) {
        return new String[] {owner, LEASE_MS, FENCE_TTL_MS, "0", grantId, TOKEN_BLOCK, WAIT_FOREVER_MS};
    }

    static String[] releaseKeys(String redisKey, String owner) {
        return new String[] {redisKey, redisKey + ":released:" + owner, redisKey + ":fence"};
    }

    /** The last release of grant {@code grantId}, waking {@code clientId}'s kind of waiters on the lock's channel. */
    static String[] releaseArgs(String redisKey, String owner, String grantId, String clientId) {
        return new String[] {
            owner,
            grantId,
            "1",
            redisKey + ":channel",
            clientId,
            NOTE_TTL_MS,
            "0",
            RESERVE_MS,
            KEEP_PAST_LEASE,
            FENCE_TTL_MS,
            MESSAGE_GRANT_MS
        };
    }
}
