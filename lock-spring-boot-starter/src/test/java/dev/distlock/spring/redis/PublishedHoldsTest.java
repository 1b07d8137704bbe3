package dev.distlock.spring.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.HeldLock;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The text an instance publishes of its holds reads back as the holds it had, whatever their keys and threads. */
class PublishedHoldsTest {

    private static HeldLock hold(String key, String thread, long token, Instant since) {
        return new HeldLock(
                new LockInfo(key, key, LockType.REENTRANT), thread, since, token, 1, true, Duration.ofSeconds(30));
    }

    @Test
    void keysAndThreadsWithSpacesAndLineBreaksReadBackAsPublished() {
        Instant since = Instant.parse("2026-01-02T03:04:05.678Z");
        String text = PublishedHolds.encode(
                List.of(hold("order 42\nx", "worker 1", 7, since), hold("plain", null, 8, since.plusMillis(5))));
        Map<String, PublishedHolds.Hold> holds = PublishedHolds.parse(text);
        assertThat(holds)
                .containsEntry(PublishedHolds.holdId("order 42\nx", 7), new PublishedHolds.Hold("worker 1", since))
                .containsEntry(PublishedHolds.holdId("plain", 8), new PublishedHolds.Hold(null, since.plusMillis(5)))
                .hasSize(2);
    }

    @Test
    void theSignatureIgnoresTheGrantTimesAndTheOldestHoldsArePublishedUpToTheCap() {
        Instant since = Instant.now();
        assertThat(PublishedHolds.signature(List.of(hold("a", "t", 1, since))))
                .isEqualTo(PublishedHolds.signature(List.of(hold("a", "t", 1, since.plusNanos(1_000_000)))))
                .isNotEqualTo(PublishedHolds.signature(List.of(hold("a", "t", 2, since))));
        List<HeldLock> many = new ArrayList<>();
        for (int i = 0; i < PublishedHolds.MAX + 5; i++) {
            many.add(hold("k" + i, "t", i, since));
        }
        Map<String, PublishedHolds.Hold> published = PublishedHolds.parse(PublishedHolds.encode(many));
        assertThat(published).hasSize(PublishedHolds.MAX).containsKey(PublishedHolds.holdId("k0", 0));
    }

    @Test
    void aLineThisVersionCannotReadLeavesThatHoldUnknown() {
        assertThat(PublishedHolds.parse("x y z\n1 2\n3 4 t%ZZ k\n5 6 - k\n"))
                .containsOnlyKeys(PublishedHolds.holdId("k", 5));
    }
}
