package dev.distlock.core.internal.engine;

/** The arguments the lock scripts take, as values; every kind turns them into its script's ARGV. */
public final class ScriptArgs {

    private ScriptArgs() {}

    private static final String[] SMALL = new String[128];

    /** Texts of recent larger values, by a hash of the value; a slot holds one value and is replaced on a miss. */
    private static final Decimal[] RECENT = new Decimal[256];

    static {
        for (int i = 0; i < SMALL.length; i++) {
            SMALL[i] = Integer.toString(i);
        }
    }

    private record Decimal(long value, String text) {}

    /**
     * The decimal text of a script argument. Most arguments are the same few values call after call
     * (leases, TTLs, hold counts), so their text is kept rather than formatted again on every lock and
     * unlock. Slots are read and written without locking: a {@link Decimal} is immutable, and a lost
     * write only costs a later miss.
     */
    static String decimal(long value) {
        if (value >= 0 && value < SMALL.length) {
            return SMALL[(int) value];
        }
        int slot = (int) ((value * 0x9E3779B97F4A7C15L) >>> 56);
        Decimal recent = RECENT[slot];
        if (recent != null && recent.value() == value) {
            return recent.text();
        }
        String text = Long.toString(value);
        RECENT[slot] = new Decimal(value, text);
        return text;
    }

    /**
     * One acquire attempt.
     *
     * @param owner the owner id
     * @param leaseMs the lease the grant gets
     * @param fenceTtlMs how long the fencing counter outlives the grant
     * @param held how many holds the owner has now (0: a new hold)
     * @param grantId the hold's grant id when held, else this request's id; the script stores it with
     *        a new grant, so the same request sent twice is granted once
     * @param waitMs how long the caller still waits (fair locks keep its queue place that long)
     * @param tokenBlock how many fencing tokens a new grant reserves: its own and those the client may
     *        hand on locally without a round trip (reentrant locks; 1 for none)
     */
    public record Acquire(
            String owner, long leaseMs, long fenceTtlMs, int held, String grantId, long waitMs, int tokenBlock) {
        Acquire withWaitMs(long ms) {
            return new Acquire(owner, leaseMs, fenceTtlMs, held, grantId, ms, tokenBlock);
        }
    }

    /**
     * One release.
     *
     * @param owner the owner id
     * @param grantId the grant being released
     * @param held how many holds the owner has before this release (1: the last one)
     * @param wakeMessage what the last release publishes
     * @param noteTtlMs how long Redis remembers a last release, so that the same release sent again still succeeds
     * @param keepMs how long a last release leaves the lock taken, by nobody (hold-at-least); 0 frees it
     * @param keepPastLease whether {@code keepMs} may outlast the lease the lock has left: the hold's lease
     *        is renewed by the watchdog, so it has no end of its own that the caller chose
     * @param reserveMs how long a last release reserves the lock for another client that found it busy
     * @param messageGrantMs the longest TTL a last release gives a grant it makes to another client's
     *        waiting request and carries in its wake-up message (reentrant locks; 0: never grants that way)
     * @param fenceTtlMs how long the fencing counter outlives a grant the release makes to the next waiter
     * @param localOwners the owner-id prefix of the releasing client's own waiters, which it hands a grant
     *        made to them itself (fair locks; "" for none)
     * @param cohortMax how many of its waiters queued right behind such a waiter the client may pass the
     *        grant on to in-process (fair locks)
     * @param served the waiters a grant was passed down to or over in-process, "owner grant-id ..." (fair
     *        locks; "" for none): they leave the queue
     * @param callId names this release call, the same each time it is sent: a fair release that granted the
     *        lock to one of the client's waiters, run again under the same id (its reply lost), answers with
     *        that grant again; under another id (a second give-back of the same grant) it only says "released"
     * @param handOver takes a grant the release made to one of the client's waiters
     */
    public record Release(
            String owner,
            String grantId,
            int held,
            String wakeMessage,
            long noteTtlMs,
            long keepMs,
            boolean keepPastLease,
            long reserveMs,
            long messageGrantMs,
            long fenceTtlMs,
            String localOwners,
            int cohortMax,
            String served,
            long callId,
            HandOver handOver) {}

    /**
     * Where a release delivers a grant it made to a waiter of the releasing client (fair locks): that
     * waiter's request {@code grantId} then holds the lock without asking again, and may pass it down
     * {@code cohort}. {@code earlier}: an earlier sending of the same release call made the grant (its
     * reply was lost), so its lease runs from that call's first sending rather than this one.
     */
    @FunctionalInterface
    public interface HandOver {
        void granted(String owner, long token, String grantId, long leaseMs, FairCohort cohort, boolean earlier);
    }

    /**
     * A waiter giving up.
     *
     * @param owner the owner id
     * @param waitId the grant id its attempts carried: only the queue place of that wait is left, not one a
     *        later wait of the same owner took meanwhile
     * @param grantId the same, so that a grant a release made to it meanwhile is given back; empty when it
     *        held the lock already (a re-entry), which must not be given back
     * @param wakeMessage what a wake-up of the next waiter publishes
     * @param fenceTtlMs how long the fencing counter outlives a grant made to the next waiter
     * @param noteTtlMs how long Redis remembers the give-up, so that the same give-up sent again changes nothing
     */
    public record Leave(
            String owner, String waitId, String grantId, String wakeMessage, long fenceTtlMs, long noteTtlMs) {}
}
