package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** raise-fence.lua run directly against a real Redis: raises only, only for the holder, and a repeat changes nothing. */
class RaiseFenceScriptTest extends ScriptTestSupport {

    RaiseFenceScriptTest() {
        super("raise-fence");
    }

    @Test
    void holderRaisesTheCounterSoTheNextGrantDrawsALargerToken() throws Exception {
        long token = grant(A, 60_000, "g1");
        long raised = token + FAR_AHEAD_MICROS; // beyond the server clock, so the counter decides the next token

        assertThat(raiseFence(A, raised)).isEqualTo(1L);
        release(A, "g1", 1, "m");

        assertThat(grant(B, 60_000, "g2")).isEqualTo(raised + 1);
        assertThat(sync.pttl(keys.fence())).as("the counter keeps a TTL").isPositive();
    }

    @Test
    void neverLowersTheCounter() throws Exception {
        long token = grant(A, 60_000, "g1");

        assertThat(raiseFence(A, token - 500)).isEqualTo(1L);

        assertThat(fenceCounter()).isEqualTo(token);
    }

    @Test
    void nonHolderReturnsZeroAndLeavesTheCounterAlone() throws Exception {
        long token = grant(A, 60_000, "g1");

        assertThat(raiseFence(B, token + 1_000)).isZero();

        assertThat(fenceCounter()).isEqualTo(token);
    }

    @Test
    void onAFreeLockReturnsZeroAndCreatesNothing() throws Exception {
        assertThat(raiseFence(A, 42)).isZero();

        assertThat(sync.exists(keys.lock(), keys.fence())).isZero();
    }

    @Test
    void sentTwiceAnswersOneBothTimesAndRaisesOnce() throws Exception {
        long token = grant(A, 60_000, "g1");
        long raised = token + FAR_AHEAD_MICROS;

        assertThat(raiseFence(A, raised)).isOne();
        assertThat(raiseFence(A, raised)).isOne();

        assertThat(fenceCounter()).isEqualTo(raised);
        assertThat(sync.hgetall(keys.lock())).containsEntry(A, "1").containsEntry("~token", Long.toString(token));
    }
}
