package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * release.lua run directly against a real Redis: owner and grant check, count written down, delete
 * and publish (only when somebody waited), and the note that lets the same last release sent again
 * still answer "released".
 */
class ReleaseScriptTest extends ScriptTestSupport {

    ReleaseScriptTest() {
        super("release");
    }

    /**
     * Callers of {@code owner}'s client found the lock busy and wait, and the first of them gave up: the
     * lock stays marked as waited for ('~s'), but no client is recorded for a release to reserve it for.
     */
    private void waits(String owner) throws Exception {
        assertThat(acquire(owner, 30_000, 0, "g-" + owner, 1, 1_000).get(0)).isEqualTo(0L);
        assertThat(leave(owner, "g-" + owner, "left"))
                .as("its client's record taken back")
                .isEqualTo(1L);
    }

    @Test
    void wrongOwnerGetsMinusOneAndLockIsUntouched() throws Exception {
        grant(A, 30_000, "g1");
        long ttlBefore = sync.pttl(keys.lock());

        assertThat(release(B, "g1", 1, "m")).isEqualTo(-1L);

        assertThat(sync.hget(keys.lock(), A)).isEqualTo("1");
        assertThat(sync.hexists(keys.lock(), B)).isFalse();
        assertThat(sync.pttl(keys.lock())).isBetween(1L, ttlBefore);
        assertThat(sync.exists(noteKey(B))).isZero();
    }

    @Test
    void rightOwnerWithAnotherGrantIdGetsMinusOneAndLockIsUntouched() throws Exception {
        grant(A, 30_000, "g1");

        assertThat(release(A, "g-other", 1, "m")).isEqualTo(-1L);

        assertThat(sync.hgetall(keys.lock())).containsEntry(A, "1").containsEntry("~req", "g1");
        assertThat(sync.exists(noteKey(A))).isZero();
    }

    @Test
    void releasingAFreeLockGetsMinusOneAndCreatesNothing() throws Exception {
        assertThat(release(A, "g1", 1, "m")).isEqualTo(-1L);

        assertThat(sync.exists(keys.lock(), noteKey(A))).isZero();
    }

    @Test
    void releaseOfAnExpiredLockGetsMinusOne() throws Exception {
        grant(A, 50, "g1");
        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(keys.lock()) == 0);

        assertThat(release(A, "g1", 1, "m")).isEqualTo(-1L);

        assertThat(sync.exists(keys.lock(), noteKey(A))).isZero();
    }

    @Test
    void releaseOfAReentrantHoldWritesTheCountDownAndReturnsZero() throws Exception {
        grant(A, 30_000, "g1");
        acquire(A, 30_000, 1, "g1");

        assertThat(release(A, "g1", 2, "m")).isZero();

        assertThat(sync.hget(keys.lock(), A)).isEqualTo("1");
        assertThat(sync.pttl(keys.lock())).isPositive();
        assertThat(sync.exists(noteKey(A)))
                .as("only a last release leaves a note")
                .isZero();
    }

    @Test
    void lastReleaseDeletesLockLeavesANoteAndPublishesWakeUp() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        grant(A, 30_000, "g1");
        waits(C);

        assertThat(release(A, "g1", 1, "wake-from-a", 20_000)).isEqualTo(1L);

        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(sync.get(noteKey(A))).isEqualTo("g1");
        assertThat(sync.pttl(noteKey(A))).isBetween(1L, 20_000L);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("wake-from-a");
    }

    @Test
    void aLastReleaseNobodyWaitedForPublishesNothing() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        grant(A, 30_000, "g1");
        assertThat(acquire(B, 30_000, 0, "g2").get(0))
                .as("a single attempt, which does not wait")
                .isEqualTo(0L);

        assertThat(release(A, "g1", 1, "nobody-waits")).isEqualTo(1L);

        assertThat(sync.exists(keys.lock())).isZero();
        sync.publish(keys.channel(), "flush"); // in order on one channel: a wake-up would come before this
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
    }

    @Test
    void onlyTheLastReleasePublishes() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        grant(A, 30_000, "g1");
        waits(C);
        acquire(A, 30_000, 1, "g1");

        assertThat(release(B, "g1", 1, "from-wrong-owner")).isEqualTo(-1L);
        assertThat(release(A, "g1", 2, "from-partial-release")).isZero();
        assertThat(release(A, "g1", 1, "from-last-release")).isEqualTo(1L);

        // Redis delivers a connection's publishes in order: had an earlier call published, it would come first.
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("from-last-release");
    }

    @Test
    void releaseKeepsTheFencingCounter() throws Exception {
        long token = grant(A, 30_000, "g1");

        release(A, "g1", 1, "m");

        assertThat(sync.get(keys.fence())).isEqualTo(Long.toString(token));
    }

    // The same call sent twice: Lettuce re-sends a command whose reply was lost.

    @Test
    void partialReleaseSentTwiceCountsDownOnce() throws Exception {
        grant(A, 30_000, "g1");
        acquire(A, 30_000, 1, "g1");
        acquire(A, 30_000, 2, "g1");

        assertThat(release(A, "g1", 3, "m")).isZero();
        assertThat(release(A, "g1", 3, "m")).isZero();

        assertThat(sync.hget(keys.lock(), A)).isEqualTo("2");
    }

    @Test
    void lastReleaseSentTwiceAnswersOneAgainAndPublishesOnce() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        grant(A, 30_000, "g1");
        waits(C);
        assertThat(release(A, "g1", 1, "first")).isEqualTo(1L);

        assertThat(release(A, "g1", 1, "repeat")).isEqualTo(1L);

        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(sync.get(noteKey(A))).isEqualTo("g1");
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("first");
        sync.publish(keys.channel(), "flush"); // in order on one channel: a second wake-up would come before this
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
    }

    @Test
    void repeatOfALastReleaseAfterTheOwnerTookTheLockAgainAnswersOneAndLeavesTheNewHold() throws Exception {
        grant(A, 30_000, "g1");
        release(A, "g1", 1, "m");
        long token = grant(A, 30_000, "g2");

        assertThat(release(A, "g1", 1, "m")).isEqualTo(1L);

        assertThat(sync.hgetall(keys.lock()))
                .containsEntry(A, "1")
                .containsEntry("~req", "g2")
                .containsEntry("~token", Long.toString(token));
    }

    @Test
    void repeatOfALastReleaseAfterAnotherOwnerTookTheLockAnswersOneAndLeavesThatOwnersGrant() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        grant(A, 30_000, "g1");
        waits(C);
        release(A, "g1", 1, "first");
        long token = grant(B, 30_000, "g2");

        assertThat(release(A, "g1", 1, "repeat")).isEqualTo(1L);

        assertThat(sync.hgetall(keys.lock()))
                .containsOnlyKeys(B, "~token", "~req")
                .containsEntry(B, "1")
                .containsEntry("~token", Long.toString(token));
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("first");
        sync.publish(keys.channel(), "flush");
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
    }

    @Test
    void repeatOfALastReleaseWithAnotherGrantIdGetsMinusOne() throws Exception {
        grant(A, 30_000, "g1");
        release(A, "g1", 1, "m");

        assertThat(release(A, "g2", 1, "m")).isEqualTo(-1L);
        assertThat(release(B, "g1", 1, "m")).as("the note is the owner's own").isEqualTo(-1L);

        assertThat(sync.get(noteKey(A))).isEqualTo("g1");
    }

    @Test
    void repeatOfALastReleaseAfterTheNoteExpiredGetsMinusOne() throws Exception {
        grant(A, 30_000, "g1");
        assertThat(release(A, "g1", 1, "m", 100)).isEqualTo(1L);
        assertThat(release(A, "g1", 1, "m", 100)).as("while the note lives").isEqualTo(1L);

        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(noteKey(A)) == 0);

        assertThat(release(A, "g1", 1, "m", 100)).isEqualTo(-1L);
        assertThat(sync.exists(keys.lock(), noteKey(A))).isZero();
    }

    @Test
    void lastReleaseWithHoldAtLeastKeepsTheLockTakenByNobodyWithoutWakingAnyone() throws Exception {
        long token = grant(A, 30_000, "g1");
        BlockingQueue<String> wakeups = probe.subscribe(keys.channel());

        assertThat(release(A, "g1", 1, "m", NOTE_TTL_MS, 2_000)).isEqualTo(1L);

        assertThat(sync.hexists(keys.lock(), A))
                .as("no owner: not even A re-enters")
                .isFalse();
        assertThat(sync.pttl(keys.lock())).isBetween(1L, 2_000L);
        assertThat(acquire(B, 30_000, 0, "g2").get(0)).as("B is kept out").isEqualTo(0L);
        assertThat(acquire(A, 30_000, 1, "g1").get(0))
                .as("A's old grant is gone")
                .isEqualTo(0L);
        assertThat(acquire(A, 30_000, 0, "g3").get(0)).as("A is kept out too").isEqualTo(0L);
        assertThat(renew(A, "g1", 30_000)).as("the old grant cannot be renewed").isZero();
        assertThat(release(A, "g1", 1, "m", NOTE_TTL_MS, 2_000))
                .as("the same release sent again")
                .isEqualTo(1L);
        assertThat(sync.pttl(keys.lock())).as("a repeat does not stretch it").isBetween(1L, 2_000L);
        assertThat(wakeups.poll(200, TimeUnit.MILLISECONDS))
                .as("nobody is woken")
                .isNull();

        sync.pexpire(keys.lock(), 1); // as if the time were up
        await().atMost(Duration.ofSeconds(2)).until(() -> sync.exists(keys.lock()) == 0);
        assertThat(grant(B, 30_000, "g4")).as("the fence still grows").isGreaterThan(token);
    }

    @Test
    void holdAtLeastNeverOutlastsTheLeaseNorKeepsANotLastHold() throws Exception {
        grant(A, 1_000, "g1");
        acquire(A, 1_000, 1, "g1"); // held twice

        assertThat(release(A, "g1", 2, "m", NOTE_TTL_MS, 60_000)).isZero();
        assertThat(sync.hget(keys.lock(), A)).as("one hold left, still A's").isEqualTo("1");

        assertThat(release(A, "g1", 1, "m", NOTE_TTL_MS, 60_000)).isEqualTo(1L);
        assertThat(sync.pttl(keys.lock())).as("the lease left wins").isBetween(1L, 1_000L);
    }
}
