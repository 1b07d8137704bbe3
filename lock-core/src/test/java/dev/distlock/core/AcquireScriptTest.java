package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.script.LockScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** acquire.lua run directly against a real Redis: grant, re-entry, busy, expiry and fencing tokens. */
class AcquireScriptTest extends ScriptTestSupport {

    AcquireScriptTest() {
        super("acquire");
    }

    private static final String FENCE_TTL_MS = Long.toString(Duration.ofDays(1).toMillis());
    private static final String OWNER_A = "client-a:1";
    private static final String OWNER_B = "client-b:1";

    @Test
    void freshGrantReturnsTokenAndCountOneAndSetsLease() throws Exception {
        List<Object> reply = acquire(OWNER_A, 10_000);

        assertThat(reply).hasSize(3);
        assertThat(reply.get(0)).isEqualTo(1L);
        assertThat((Long) reply.get(1)).isPositive();
        assertThat(reply.get(2)).isEqualTo(1L);
        assertThat(sync.hget(keys.lock(), OWNER_A)).isEqualTo("1");
        assertThat(sync.hget(keys.lock(), "~token")).isEqualTo(reply.get(1).toString());
        assertThat(sync.pttl(keys.lock())).isBetween(1L, 10_000L);
        assertThat(sync.get(keys.fence())).isEqualTo(reply.get(1).toString());
        assertThat(sync.pttl(keys.fence())).isGreaterThan(Duration.ofHours(23).toMillis());
    }

    @Test
    void reentryIncrementsCountKeepsTokenAndResetsLease() throws Exception {
        List<Object> first = acquire(OWNER_A, 1_000);

        List<Object> second = acquire(OWNER_A, 60_000);
        List<Object> third = acquire(OWNER_A, 60_000);

        assertThat(second).containsExactly(1L, first.get(1), 2L);
        assertThat(third).containsExactly(1L, first.get(1), 3L);
        assertThat(sync.hget(keys.lock(), OWNER_A)).isEqualTo("3");
        // the re-entry's lease replaced the first one's 1 s
        assertThat(sync.pttl(keys.lock())).isGreaterThan(30_000L);
        // re-entry does not consume a fencing token
        assertThat(sync.get(keys.fence())).isEqualTo(first.get(1).toString());
    }

    @Test
    void busyLockReturnsZeroWithRemainingTtlAndLeavesHolderUntouched() throws Exception {
        List<Object> granted = acquire(OWNER_A, 10_000);

        List<Object> busy = acquire(OWNER_B, 60_000);

        assertThat(busy).hasSize(3);
        assertThat(busy.get(0)).isEqualTo(0L);
        assertThat((Long) busy.get(1)).isBetween(1L, 10_000L);
        assertThat(busy.get(2)).isEqualTo(0L);
        assertThat(sync.hgetall(keys.lock())).containsOnlyKeys(OWNER_A, "~token")
                .containsEntry(OWNER_A, "1").containsEntry("~token", granted.get(1).toString());
        assertThat(sync.pttl(keys.lock())).isLessThanOrEqualTo(10_000L);
    }

    @Test
    void expiredLockCanBeTakenByAnotherOwnerWithALargerToken() throws Exception {
        List<Object> first = acquire(OWNER_A, 50);
        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(keys.lock()) == 0);

        List<Object> second = acquire(OWNER_B, 10_000);

        assertThat(second.get(0)).isEqualTo(1L);
        assertThat(second.get(2)).isEqualTo(1L);
        assertThat((Long) second.get(1)).isGreaterThan((Long) first.get(1));
        assertThat(sync.hgetall(keys.lock())).containsOnlyKeys(OWNER_B, "~token");
    }

    @Test
    void fencingTokenStrictlyIncreasesAcrossGrants() throws Exception {
        List<Long> tokens = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            String owner = (i % 2 == 0 ? OWNER_A : OWNER_B);
            List<Object> reply = acquire(owner, 10_000);
            assertThat(reply.get(0)).isEqualTo(1L);
            tokens.add((Long) reply.get(1));
            sync.del(keys.lock());
        }

        for (int i = 1; i < tokens.size(); i++) {
            assertThat(tokens.get(i)).as("token of grant %d", i).isGreaterThan(tokens.get(i - 1));
        }
    }

    @Test
    void tokenAfterFenceCounterWasDeletedIsStillLargerBecauseSeededFromServerTimeInMicros() throws Exception {
        long first = (Long) acquire(OWNER_A, 10_000).get(1);
        sync.del(keys.lock(), keys.fence());

        long before = serverMicros();
        long second = (Long) acquire(OWNER_B, 10_000).get(1);
        long after = serverMicros();

        assertThat(second).isGreaterThan(first);
        // seed = TIME in microseconds, then INCR
        assertThat(second).isBetween(before + 1, after + 1);
    }

    @Test
    void tokenAfterFenceCounterExpiredIsStillLarger() throws Exception {
        long first = (Long) acquire(OWNER_A, 10_000).get(1);
        sync.del(keys.lock());
        sync.pexpire(keys.fence(), 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(keys.fence()) == 0);

        long second = (Long) acquire(OWNER_A, 10_000).get(1);

        assertThat(second).isGreaterThan(first);
    }

    @Test
    void tokenKeepsCountingFromAnExistingFenceCounter() throws Exception {
        sync.set(keys.fence(), "41");

        List<Object> reply = acquire(OWNER_A, 10_000);

        assertThat(reply).containsExactly(1L, 42L, 1L);
    }

    private List<Object> acquire(String owner, long leaseMs) throws Exception {
        return scripts.array(LockScript.ACQUIRE, new String[] {keys.lock(), keys.fence()}, owner, Long.toString(leaseMs), FENCE_TTL_MS)
                .get(5, TimeUnit.SECONDS);
    }

    private long serverMicros() {
        List<String> time = sync.time();
        return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
    }
}
