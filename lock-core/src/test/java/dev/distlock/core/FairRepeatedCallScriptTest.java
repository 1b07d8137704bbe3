package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The fair scripts' calls sent twice, as Lettuce sends a command again whose reply was lost: a grant, a
 * re-entry, a partial or last release and a leave each count once and wake the next waiter once; a last
 * release sent again after its note expired gets -1.
 */
class FairRepeatedCallScriptTest extends FairScriptSupport {

    @Test
    void grantSentTwiceIsGrantedOnceWithTheSameToken() throws Exception {
        List<Object> first = fair(A, 10_000, WAIT_MS);
        long counter = fenceCounter();

        assertThat(fair(A, 10_000, WAIT_MS)).isEqualTo(first);

        assertThat(sync.hget(keys.lock(), A)).isEqualTo("1");
        assertThat(fenceCounter()).isEqualTo(counter);
        assertThat(sync.exists(keys.queue(), keys.timeouts())).isZero();
    }

    @Test
    void grantOfTheHeadSentTwiceTakesItOffTheQueueOnlyOnce() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        fairRelease(A);
        List<Object> first = fair(B, 60_000, WAIT_MS);

        List<Object> again = fair(B, 60_000, WAIT_MS);

        assertThat(first.get(0)).isEqualTo(1L);
        assertThat(again).isEqualTo(first);
        assertThat(sync.hget(keys.lock(), B)).isEqualTo("1");
        assertThat(sync.lrange(keys.queue(), 0, -1)).as("C keeps its place").containsExactly(C);
        assertThat(sync.zrange(keys.timeouts(), 0, -1)).containsExactly(C);
    }

    @Test
    void reentrySentTwiceCountsOnce() throws Exception {
        long token = (Long) fair(A, 60_000, WAIT_MS).get(1);

        assertThat(fair(A, 60_000, 1, grantOf(A), WAIT_MS)).containsExactly(1L, token, 2L);
        assertThat(fair(A, 60_000, 1, grantOf(A), WAIT_MS)).containsExactly(1L, token, 2L);

        assertThat(sync.hget(keys.lock(), A)).isEqualTo("2");
    }

    @Test
    void partialReleaseSentTwiceCountsDownOnce() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(A, 60_000, 1, grantOf(A), WAIT_MS);
        fair(A, 60_000, 2, grantOf(A), WAIT_MS);

        assertThat(fairRelease(A, grantOf(A), 3)).isZero();
        assertThat(fairRelease(A, grantOf(A), 3)).isZero();

        assertThat(sync.hget(keys.lock(), A)).isEqualTo("2");
    }

    @Test
    void lastReleaseSentTwiceAnswersOneAgainAndWakesTheNextWaiterOnce() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        BlockingQueue<String> toB = probe.subscribe(keys.waiterChannelPrefix() + B);
        BlockingQueue<String> shared = probe.subscribe(keys.channel());
        assertThat(fairRelease(A)).isOne();

        assertThat(fairRelease(A)).isOne();
        long token = Long.parseLong(sync.hget(keys.lock(), "~token"));
        long counter = fenceCounter();

        assertThat(fairRelease(A)).isOne();

        assertGrantedTo(B);
        assertThat(sync.hget(keys.lock(), "~token")).as("granted once").isEqualTo(Long.toString(token));
        assertThat(fenceCounter()).isEqualTo(counter);
        assertThat(sync.get(noteKey(A))).isEqualTo(grantOf(A));
        assertThat(sync.exists(keys.queue(), keys.timeouts(), keys.waiting())).isZero();
        assertThat(toB.poll(5, TimeUnit.SECONDS)).isNotNull();
        sync.publish(keys.channel(), "flush"); // delivered in order after any second wake-up
        assertThat(shared.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
        assertThat(toB).isEmpty();
    }

    @Test
    void repeatOfALastReleaseAfterTheNoteExpiredGetsMinusOne() throws Exception {
        fair(A, 60_000, WAIT_MS);
        assertThat(fairRelease(A, grantOf(A), 1, 100)).isOne();
        assertThat(fairRelease(A, grantOf(A), 1)).as("while the note lives").isOne();

        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(noteKey(A)) == 0);

        assertThat(fairRelease(A, grantOf(A), 1)).isEqualTo(-1L);
    }

    @Test
    void leaveSentTwiceChangesNothingTheSecondTime() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        assertThat(fairLeave(C)).isOne();

        assertThat(fairLeave(C)).as("no longer queued").isZero();

        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(B);
        assertThat(sync.zrange(keys.timeouts(), 0, -1)).containsExactly(B);
        assertThat(sync.hget(keys.lock(), A)).isEqualTo("1");
    }

    @Test
    void leaveOfTheHeadSentTwiceWakesTheNextWaiterOnce() throws Exception {
        fair(A, 60_000, WAIT_MS);
        fair(B, 60_000, WAIT_MS);
        fair(C, 60_000, WAIT_MS);
        fair(D, 60_000, WAIT_MS);
        fairRelease(A);
        BlockingQueue<String> toC = probe.subscribe(keys.waiterChannelPrefix() + C);
        BlockingQueue<String> toD = probe.subscribe(keys.waiterChannelPrefix() + D);
        BlockingQueue<String> shared = probe.subscribe(keys.channel());
        assertThat(fairLeave(B)).isOne();

        assertThat(fairLeave(B)).isZero();

        assertThat(toC.poll(5, TimeUnit.SECONDS)).isNotNull();
        sync.publish(keys.channel(), "flush");
        assertThat(shared.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
        assertThat(toC).isEmpty();
        assertThat(toD).isEmpty();
        assertGrantedTo(C);
        assertThat(sync.lrange(keys.queue(), 0, -1)).containsExactly(D);
    }
}
