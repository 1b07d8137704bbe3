package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** renew.lua run directly against a real Redis: only the holder of that grant extends, nothing is ever recreated. */
class RenewScriptTest extends ScriptTestSupport {

    RenewScriptTest() {
        super("renew");
    }

    @Test
    void ownerRenewalReturnsOneAndResetsTtl() throws Exception {
        grant(A, 2_000, "g1");

        assertThat(renew(A, "g1", 60_000)).isEqualTo(1L);

        assertThat(sync.pttl(keys.lock())).isGreaterThan(30_000L);
        assertThat(sync.hget(keys.lock(), A))
                .as("renewal must not change the hold count")
                .isEqualTo("1");
    }

    @Test
    void renewalByAnotherOwnerReturnsZeroAndLeavesTtlAlone() throws Exception {
        grant(A, 2_000, "g1");

        assertThat(renew(B, "g1", 60_000)).isZero();

        assertThat(sync.pttl(keys.lock())).isBetween(1L, 2_000L);
        assertThat(sync.hexists(keys.lock(), B)).isFalse();
    }

    @Test
    void renewalWithAStaleGrantIdReturnsZeroAndLeavesTtlAlone() throws Exception {
        grant(A, 2_000, "g1");
        grant(A, 2_000, "g2"); // g1 was replaced: its renewals must not stretch g2

        assertThat(renew(A, "g1", 60_000)).isZero();

        assertThat(sync.pttl(keys.lock())).isBetween(1L, 2_000L);
        assertThat(sync.hget(keys.lock(), "~req")).isEqualTo("g2");
    }

    @Test
    void renewalOfAMissingLockReturnsZeroAndNeverRecreatesIt() throws Exception {
        assertThat(renew(A, "g1", 60_000)).isZero();

        assertThat(sync.exists(keys.lock())).isZero();
    }

    @Test
    void renewalAfterReleaseDoesNotReviveTheLock() throws Exception {
        grant(A, 60_000, "g1");
        release(A, "g1", 1, "m");

        assertThat(renew(A, "g1", 60_000)).isZero();

        assertThat(sync.exists(keys.lock())).isZero();
    }

    @Test
    void renewalSentTwiceAnswersOneBothTimesAndChangesOnlyTheTtl() throws Exception {
        long token = grant(A, 2_000, "g1");
        acquire(A, 2_000, 1, "g1");

        assertThat(renew(A, "g1", 60_000)).isOne();
        assertThat(renew(A, "g1", 60_000)).isOne();

        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(A, "~token", "~req")
                .containsEntry(A, "2")
                .containsEntry("~token", Long.toString(token))
                .containsEntry("~req", "g1");
        assertThat(sync.pttl(keys.lock())).isBetween(30_000L, 60_000L);
        assertThat(fenceCounter()).isEqualTo(token);
    }
}
