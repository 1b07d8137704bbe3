package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** force-release.lua run directly against a real Redis: deletes whoever holds, publishes only then. */
class ForceReleaseScriptTest extends ScriptTestSupport {

    ForceReleaseScriptTest() {
        super("force");
    }

    @Test
    void deletesALockHeldReentrantlyByAnotherOwnerAndPublishes() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        grant(A, 30_000, "g1");
        acquire(A, 30_000, 1, "g1");

        assertThat(forceRelease("forced")).isEqualTo(1L);

        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("forced");
    }

    @Test
    void freeLockReturnsZeroAndDoesNotPublish() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());

        assertThat(forceRelease("should-not-arrive")).isZero();
        grant(A, 30_000, "g1");
        assertThat(forceRelease("second")).isEqualTo(1L);

        // publishes arrive in order, so a message from the first call would come first
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("second");
    }

    @Test
    void keepsTheFencingCounterSoTheNextGrantGetsALargerToken() throws Exception {
        long first = grant(A, 30_000, "g1");

        forceRelease("m");
        long second = grant(B, 30_000, "g2");

        assertThat(second).isGreaterThan(first);
        assertThat(fenceCounter()).isEqualTo(second);
    }

    @Test
    void sentTwiceTheRepeatAnswersAsTheFirstAndPublishesNothing() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        long token = grant(A, 30_000, "g1");
        assertThat(forceRelease("first", "req-1")).isOne();

        long repeat = forceRelease("repeat", "req-1");

        assertThat(repeat).as("the answer of the first run").isOne();
        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(fenceCounter()).isEqualTo(token);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("first");
        sync.publish(keys.channel(), "flush");
        assertThat(messages.poll(5, TimeUnit.SECONDS))
                .as("the repeat published nothing")
                .isEqualTo("flush");
    }

    @Test
    void aRepeatOfARunThatFoundTheLockFreeStillAnswersZero() throws Exception {
        assertThat(forceRelease("m", "req-free")).isZero();
        grant(A, 30_000, "g1");

        assertThat(forceRelease("m", "req-free")).isZero();
        assertThat(sync.hexists(keys.lock(), A))
                .as("A's later grant is untouched")
                .isTrue();
    }

    /**
     * A repeat that reaches Redis after another client took the freed lock (Lettuce re-sends a command
     * whose reply was lost, and another client's connection is not ordered with ours) must not delete
     * that client's grant, and answers as the first run did.
     */
    @Test
    void repeatArrivingAfterAnotherOwnerTookTheFreedLockLeavesThatOwnersGrant() throws Exception {
        grant(A, 30_000, "g1");
        assertThat(forceRelease("m", "req-2")).isOne();
        long token = grant(B, 30_000, "g2");

        long repeat = forceRelease("m", "req-2");

        assertThat(sync.hgetall(keys.lock()))
                .as("B's grant after the repeat of A's force release")
                .containsEntry(B, "1")
                .containsEntry("~token", Long.toString(token));
        assertThat(repeat).as("the answer of the first run").isOne();
    }

    @Test
    void theNoteExpires() throws Exception {
        grant(A, 30_000, "g1");
        assertThat(scripts.integer(
                                dev.distlock.core.internal.redis.script.LockScript.FORCE_RELEASE,
                                new String[] {keys.lock(), keys.note("~force:req-3")},
                                keys.channel(),
                                "m",
                                "100")
                        .get(5, TimeUnit.SECONDS))
                .isOne();
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(5))
                .until(() -> sync.exists(keys.lock() + ":released:~force:req-3") == 0);
    }
}
