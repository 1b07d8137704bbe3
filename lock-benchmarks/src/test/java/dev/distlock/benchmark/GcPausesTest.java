package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** {@link GcPauses} against this JVM's real collector: a full GC (a pause) inside the window counts, outside it does not. */
class GcPausesTest {

    @Test
    void countsThePausesThatStartWithinTheWindowOnly() throws Exception {
        try (GcPauses pauses = new GcPauses()) {
            System.gc(); // before the window: not counted
            settle();
            pauses.opened();
            Thread.sleep(20);
            pauses.closed();
            settle();
            assertThat(pauses.count()).as("no collection ran in the window").isZero();
            assertThat(pauses.longestMillis()).isZero();

            pauses.opened();
            for (int i = 0; i < 3; i++) {
                System.gc(); // G1's System.gc() is a full, stop-the-world collection
            }
            pauses.closed();
            System.gc(); // after the window: not counted
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (pauses.count() < 3 && System.nanoTime() < deadline) {
                Thread.sleep(10); // the notifications come on the JVM's service thread
            }
            settle();
            assertThat(pauses.count()).isEqualTo(3);
            assertThat(pauses.longestMillis()).isNotNegative();
        }
    }

    /** Lets notifications of collections already done arrive. */
    private static void settle() throws InterruptedException {
        Thread.sleep(300);
    }
}
