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
    void sentTwiceTheRepeatDeletesAndPublishesNothing() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        long token = grant(A, 30_000, "g1");
        assertThat(forceRelease("first")).isOne();

        long repeat = forceRelease("repeat");

        assertThat(repeat).as("the lock was already free").isZero();
        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(fenceCounter()).isEqualTo(token);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("first");
        sync.publish(keys.channel(), "flush");
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
    }

    /**
     * The script takes no request id, so it cannot tell a re-sent force release from a new one: a
     * repeat that reaches Redis after another client took the freed lock deletes that client's grant
     * (two holders at once once a third client takes it), and the caller's forceUnlock() answers
     * false although its first run deleted the lock. Another client's connection is not ordered
     * with ours, so this happens with Lettuce's re-send after a reconnect.
     */
    @Test
    void repeatArrivingAfterAnotherOwnerTookTheFreedLockLeavesThatOwnersGrant() throws Exception {
        grant(A, 30_000, "g1");
        assertThat(forceRelease("m")).isOne();
        long token = grant(B, 30_000, "g2");

        long repeat = forceRelease("m");

        assertThat(sync.hgetall(keys.lock())).as("B's grant after the repeat of A's force release")
                .containsEntry(B, "1").containsEntry("~token", Long.toString(token));
        assertThat(repeat).as("the answer of the first run").isOne();
    }
}
