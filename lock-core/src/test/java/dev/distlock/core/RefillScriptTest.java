package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * refill.lua run directly against a real Redis: the next block of fencing tokens goes only to the grant
 * that still holds the lock, only while no other client waits for it, and always lies above every token
 * handed out before, also when the same request runs twice.
 */
class RefillScriptTest extends ScriptTestSupport {

    RefillScriptTest() {
        super("refill");
    }

    @Test
    void theHolderAloneGetsTheNextBlockAboveItsOwn() throws Exception {
        List<Object> granted = acquireWaiting(A, 60_000, 0, "g1");
        long token = (Long) granted.get(1);
        long lastOfBlock = token + TOKEN_BLOCK - 1;

        List<Object> block = refill(A, "g1");

        long first = (Long) block.get(0);
        assertThat(first)
                .as("above the first block, %d..%d", token, lastOfBlock)
                .isGreaterThan(lastOfBlock);
        assertThat((Long) block.get(1)).isEqualTo(first + TOKEN_BLOCK - 1);
        assertThat(fenceCounter()).as("the counter covers the whole block").isEqualTo(first + TOKEN_BLOCK - 1);
        assertThat(sync.hget(keys.lock(), "~token"))
                .as("the grant's own token stays")
                .isEqualTo(Long.toString(token));
    }

    @Test
    void runTwiceItReservesAHigherBlockAndNextGrantsGoHigherStill() throws Exception {
        acquireWaiting(A, 60_000, 0, "g1");

        long first = (Long) refill(A, "g1").get(0);
        long again = (Long) refill(A, "g1").get(0);
        release(A, "g1", 1, "m");
        long next = grant(B, 60_000, "g2");

        assertThat(again).isGreaterThan(first + TOKEN_BLOCK - 1);
        assertThat(next).isGreaterThan(again + TOKEN_BLOCK - 1);
    }

    @Test
    void refusedWhileAnotherClientWaits() throws Exception {
        acquireWaiting(A, 60_000, 0, "g1");
        long counter = fenceCounter();
        assertThat(acquireWaiting(B, 60_000, 0, "g2").get(0))
                .as("B is told to wait")
                .isEqualTo(0L);

        assertThat(refill(A, "g1")).containsExactly(0L, 0L);
        assertThat(fenceCounter()).as("nothing reserved").isEqualTo(counter);
    }

    @Test
    void refusedWhileAClientThatHandsNothingOnLocallyWaits() throws Exception {
        acquireWaiting(A, 60_000, 0, "g1");
        long counter = fenceCounter();
        // a single token: client-b has cohorting off
        assertThat(acquire(B, 60_000, 0, "g2", 1, 1_000).get(0)).isEqualTo(0L);

        assertThat(refill(A, "g1")).containsExactly(0L, 0L);
        assertThat(fenceCounter()).as("nothing reserved").isEqualTo(counter);
    }

    @Test
    void refusedWhenAnotherClientWaitsBehindAWaiterOfTheHoldersOwn() throws Exception {
        acquireWaiting(A, 60_000, 0, "g1");
        acquireWaiting("client-a:2", 60_000, 0, "g2"); // records client-a as the waiting client first
        acquireWaiting(B, 60_000, 0, "g3");
        assertThat(sync.hget(keys.lock(), "~w")).isEqualTo("client-a");

        assertThat(refill(A, "g1")).containsExactly(0L, 0L);
    }

    @Test
    void aWaiterOfTheHoldersOwnClientDoesNotStopIt() throws Exception {
        acquireWaiting(A, 60_000, 0, "g1");
        acquireWaiting("client-a:2", 60_000, 0, "g2"); // another thread of client-a, past its local gate

        assertThat((Long) refill(A, "g1").get(0)).isPositive();
    }

    @Test
    void refusedToAGrantNoLongerHeld() throws Exception {
        acquireWaiting(A, 60_000, 0, "g1");
        release(A, "g1", 1, "m");
        assertThat(refill(A, "g1")).as("released").containsExactly(0L, 0L);

        acquireWaiting(A, 60_000, 0, "g2");
        assertThat(refill(A, "g1")).as("a later grant of the same owner").containsExactly(0L, 0L);
        assertThat(refill(B, "g2")).as("another owner").containsExactly(0L, 0L);
        assertThat((Long) refill(A, "g2").get(0)).as("the grant itself").isPositive();
    }
}
