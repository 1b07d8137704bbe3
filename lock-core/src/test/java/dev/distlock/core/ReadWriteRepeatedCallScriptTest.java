package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rw-*.lua calls sent twice, as Lettuce sends a command again whose reply was lost: grants, re-entries,
 * releases and renewals count once and publish once; a last release repeated under another grant id or kind,
 * or after its note expired, gets -1.
 */
class ReadWriteRepeatedCallScriptTest extends ReadWriteScriptSupport {

    @Test
    void readGrantSentTwiceIsGrantedOnceWithTheSameToken() throws Exception {
        List<Object> first = read(A, LEASE);
        long counter = fenceCounter();

        assertThat(read(A, LEASE)).isEqualTo(first);

        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("1");
        assertThat(sync.hget(keys.lock(), "rq:" + A)).isEqualTo(grantOf("r", A));
        assertThat(fenceCounter()).isEqualTo(counter);
    }

    @Test
    void readReentrySentTwiceCountsOnce() throws Exception {
        long token = (Long) read(A, LEASE).get(1);

        assertThat(read(A, LEASE, 1, grantOf("r", A))).containsExactly(1L, token, 2L);
        assertThat(read(A, LEASE, 1, grantOf("r", A))).containsExactly(1L, token, 2L);

        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("2");
    }

    @Test
    void writeGrantSentTwiceIsGrantedOnceWithTheSameToken() throws Exception {
        List<Object> first = write(A, LEASE);
        long counter = fenceCounter();

        assertThat(write(A, LEASE)).isEqualTo(first);

        assertThat(sync.hget(keys.lock(), "w:" + A)).isEqualTo("1");
        assertThat(sync.hget(keys.lock(), "wq:" + A)).isEqualTo(grantOf("w", A));
        assertThat(fenceCounter()).isEqualTo(counter);
    }

    @Test
    void writeReentrySentTwiceCountsOnce() throws Exception {
        long token = (Long) write(A, LEASE).get(1);

        assertThat(write(A, LEASE, 1, grantOf("w", A))).containsExactly(1L, token, 2L);
        assertThat(write(A, LEASE, 1, grantOf("w", A))).containsExactly(1L, token, 2L);

        assertThat(sync.hget(keys.lock(), "w:" + A)).isEqualTo("2");
    }

    @Test
    void partialReadReleaseSentTwiceCountsDownOnce() throws Exception {
        read(A, LEASE);
        read(A, LEASE, 1, grantOf("r", A));
        read(A, LEASE, 2, grantOf("r", A));

        assertThat(release("r", A, grantOf("r", A), 3, "m", NOTE_TTL_MS)).isZero();
        assertThat(release("r", A, grantOf("r", A), 3, "m", NOTE_TTL_MS)).isZero();

        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("2");
    }

    @Test
    void lastReadReleaseSentTwiceAnswersOneAgainAndPublishesOnce() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        read(A, LEASE);
        assertThat(release("r", A, "first")).isOne();

        assertThat(release("r", A, "repeat")).isOne();

        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(sync.get(noteKey("r:" + A))).isEqualTo(grantOf("r", A));
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("first");
        sync.publish(keys.channel(), "flush");
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
    }

    @Test
    void writeReleaseSentTwiceLeavesTheReadHoldsAndPublishesOnce() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        write(A, LEASE);
        read(A, LEASE);
        assertThat(release("w", A, "first")).isOne();

        assertThat(release("w", A, "repeat")).isOne();

        assertThat(sync.hget(keys.lock(), "mode")).isEqualTo("read");
        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("1");
        assertThat(sync.hexists(keys.lock(), "w:" + A)).isFalse();
        assertThat(sync.get(noteKey("w:" + A))).isEqualTo(grantOf("w", A));
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("first");
        sync.publish(keys.channel(), "flush");
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
    }

    @Test
    void repeatOfALastReleaseWithAnotherGrantIdOrKindGetsMinusOne() throws Exception {
        read(A, LEASE);
        release("r", A, "m");

        assertThat(release("r", A, "g-other", 1, "m", NOTE_TTL_MS)).isEqualTo(-1L);
        assertThat(release("w", A, grantOf("r", A), 1, "m", NOTE_TTL_MS))
                .as("the note is per kind")
                .isEqualTo(-1L);
        assertThat(release("r", B, grantOf("r", A), 1, "m", NOTE_TTL_MS))
                .as("and per owner")
                .isEqualTo(-1L);
    }

    @Test
    void repeatOfALastReleaseAfterTheNoteExpiredGetsMinusOne() throws Exception {
        write(A, LEASE);
        assertThat(release("w", A, grantOf("w", A), 1, "m", 100)).isOne();
        assertThat(release("w", A, grantOf("w", A), 1, "m", 100))
                .as("while the note lives")
                .isOne();

        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(noteKey("w:" + A)) == 0);

        assertThat(release("w", A, grantOf("w", A), 1, "m", 100)).isEqualTo(-1L);
        assertThat(sync.exists(keys.lock())).isZero();
    }

    @Test
    void renewalSentTwiceAnswersOneBothTimesAndChangesNoCount() throws Exception {
        long token = (Long) write(A, 300).get(1);

        assertThat(rwRenew("w", A, LEASE)).isOne();
        assertThat(rwRenew("w", A, LEASE)).isOne();

        assertThat(sync.hget(keys.lock(), "w:" + A)).isEqualTo("1");
        assertThat(sync.hget(keys.lock(), "wt:" + A)).isEqualTo(Long.toString(token));
        assertThat(sync.pttl(keys.lock())).isBetween(LEASE - 1_000, LEASE);
    }
}
