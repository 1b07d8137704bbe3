package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.testsupport.Waits;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A waiting writer's mark in the rw-*.lua scripts, run directly against a real Redis: it holds new readers
 * back but not the readers inside, a single attempt marks nothing, a mark that ran out is dropped, a writer
 * that gives up lets readers in and wakes them once, and a give-up or an attempt sent twice counts once.
 */
class ReadWriteWriterMarkScriptTest extends ReadWriteScriptSupport {

    @Test
    void aWriterThatWaitsHoldsNewReadersBackButNotTheReadersInside() throws Exception {
        read(A, LEASE);

        List<Object> writer = write(C, LEASE, 0, grantOf("w", C), 60_000);

        assertThat(writer.get(0)).isEqualTo(0L);
        assertThat((Long) writer.get(1)).as("looks again within half its mark").isBetween(1L, MARK_MS / 2);
        assertThat(Long.parseLong(sync.hget(keys.writers(), C))).isGreaterThan(0L);
        assertThat(sync.pttl(keys.writers())).isBetween(1L, MARK_MS);
        List<Object> newReader = read(B, LEASE);
        assertThat(newReader.get(0)).isEqualTo(0L);
        assertThat((Long) newReader.get(1)).as("until the mark ends").isBetween(1L, MARK_MS);
        assertThat(sync.hexists(keys.lock(), "r:" + B)).isFalse();
        assertThat(read(A, LEASE, 1, grantOf("r", A))).as("re-entry").startsWith(1L);

        assertThat(release("r", A, grantOf("r", A), 2, "m", NOTE_TTL_MS)).isEqualTo(0L);
        assertThat(release("r", A, "m")).isEqualTo(1L);
        assertThat(write(C, LEASE, 0, grantOf("w", C), 60_000).get(0)).isEqualTo(1L);
        assertThat(sync.exists(keys.writers())).as("the grant ends the mark").isZero();
    }

    @Test
    void aSingleWriteAttemptMarksNothing() throws Exception {
        read(A, LEASE);

        assertThat(write(C, LEASE).get(0)).isEqualTo(0L);

        assertThat(sync.exists(keys.writers())).isZero();
        assertThat(read(B, LEASE).get(0)).isEqualTo(1L);
    }

    @Test
    void aMarkThatRanOutHoldsNobodyBackAndIsDropped() throws Exception {
        read(A, LEASE);
        // A wait shorter than the mark bounds it; half the mark (1 s), so that the next call, however late a
        // loaded host sends it, still finds the mark.
        write(C, LEASE, 0, grantOf("w", C), MARK_MS / 2);
        assertThat(read(B, LEASE).get(0)).isEqualTo(0L);

        await().atMost(Waits.GRANTED).until(() -> read(B, LEASE).get(0).equals(1L));

        assertThat(sync.hexists(keys.writers(), C)).isFalse();
    }

    @Test
    void aWriterThatGivesUpLetsReadersInAndWakesThemOnce() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        read(A, LEASE);
        write(C, LEASE, 0, grantOf("w", C), 60_000);
        write(D, LEASE, 0, grantOf("w", D), 60_000);

        assertThat(writerLeaves(C, grantOf("w", C), "left")).isEqualTo(1L);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("left");
        assertThat(read(B, LEASE).get(0)).as("another writer still waits").isEqualTo(0L);
        assertThat(writerLeaves(D, grantOf("w", D), "left")).isEqualTo(1L);
        assertThat(writerLeaves(D, grantOf("w", D), "again"))
                .as("the same give-up run twice")
                .isZero();

        assertThat(read(B, LEASE).get(0)).isEqualTo(1L);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("left");
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    /**
     * A writer's give-up sent again after its reply was lost runs after the same writer started a new wait: the
     * new wait's mark stays and keeps holding new readers back.
     */
    @Test
    void aGiveUpSentAgainLeavesTheMarkOfTheWritersNextWait() throws Exception {
        read(A, LEASE);
        write(C, LEASE, 0, "w-first-wait", 60_000);
        assertThat(writerLeaves(C, "w-first-wait", "left")).isEqualTo(1L);

        write(C, LEASE, 0, "w-next-wait", 60_000);
        assertThat(writerLeaves(C, "w-first-wait", "left"))
                .as("the first give-up, sent again")
                .isZero();

        assertThat(sync.hexists(keys.writers(), C)).as("the next wait's mark").isTrue();
        assertThat(read(B, LEASE).get(0)).as("a new reader is still held back").isEqualTo(0L);
        assertThat(writerLeaves(C, "w-next-wait", "left"))
                .as("the next wait's own give-up")
                .isEqualTo(1L);
        assertThat(read(B, LEASE).get(0)).isEqualTo(1L);
    }

    @Test
    void aWriteAttemptSentTwiceMarksOnce() throws Exception {
        read(A, LEASE);
        write(C, LEASE, 0, grantOf("w", C), 60_000);
        write(C, LEASE, 0, grantOf("w", C), 60_000);

        assertThat(sync.hlen(keys.writers())).isOne();
        assertThat(release("r", A, "m")).isEqualTo(1L);
        assertThat(write(C, LEASE, 0, grantOf("w", C), 60_000).get(0)).isEqualTo(1L);
        assertThat(write(C, LEASE, 0, grantOf("w", C), 60_000))
                .as("the grant sent again")
                .startsWith(1L);
        assertThat(sync.exists(keys.writers())).isZero();
    }
}
