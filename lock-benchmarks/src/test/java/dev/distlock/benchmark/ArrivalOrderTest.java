package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.benchmark.ArrivalOrder.Verdict;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ArrivalOrderTest {

    private static final long MS = 1_000_000;

    @Test
    void grantToTheLongestWaiterKeepsOrder() {
        ArrivalOrder order = new ArrivalOrder(3, Duration.ofMillis(5));
        order.asking(0, 100 * MS);
        order.asking(1, 110 * MS);
        order.asking(2, 120 * MS);
        assertThat(order.granted(0, 121 * MS)).isEqualTo(Verdict.IN_ORDER);
        assertThat(order.granted(1, 122 * MS)).isEqualTo(Verdict.IN_ORDER);
        assertThat(order.granted(2, 123 * MS)).isEqualTo(Verdict.IN_ORDER);
    }

    @Test
    void grantPastAnEarlierWaiterBreaksOrder() {
        ArrivalOrder order = new ArrivalOrder(2, Duration.ofMillis(5));
        order.asking(0, 100 * MS);
        order.asking(1, 110 * MS);
        assertThat(order.granted(1, 111 * MS)).isEqualTo(Verdict.OUT_OF_ORDER);
        // Worker 0 is still the oldest waiter and may take its turn now.
        assertThat(order.granted(0, 112 * MS)).isEqualTo(Verdict.IN_ORDER);
    }

    @Test
    void arrivalsWithinTheSlackMayQueueEitherWay() {
        ArrivalOrder order = new ArrivalOrder(2, Duration.ofMillis(5));
        order.asking(0, 100 * MS);
        order.asking(1, 104 * MS);
        assertThat(order.granted(1, 105 * MS)).isEqualTo(Verdict.IN_ORDER);
    }

    @Test
    void aWorkerThatIsNotWaitingIsNotPassed() {
        ArrivalOrder order = new ArrivalOrder(2, Duration.ofMillis(5));
        order.asking(0, 100 * MS);
        assertThat(order.granted(0, 101 * MS)).isEqualTo(Verdict.IN_ORDER);
        order.asking(1, 200 * MS);
        assertThat(order.granted(1, 201 * MS)).isEqualTo(Verdict.IN_ORDER);
    }

    @Test
    void aLeadSpentInAStallOfTheJvmIsUndecided() {
        // The JVM stood still from 101 to 131 ms: worker 0's request may have gone out after worker 1's.
        ArrivalOrder order = new ArrivalOrder(2, Duration.ofMillis(5), stalled(101 * MS, 131 * MS));
        order.asking(0, 100 * MS);
        order.asking(1, 132 * MS);
        assertThat(order.granted(1, 133 * MS)).isEqualTo(Verdict.UNDECIDED);
        assertThat(order.granted(0, 134 * MS)).isEqualTo(Verdict.IN_ORDER);
    }

    @Test
    void aStallShorterThanTheLeadBeyondTheSlackLeavesTheGrantOutOfOrder() {
        // A 20 ms stall does not explain a 32 ms lead with 5 ms of slack.
        ArrivalOrder order = new ArrivalOrder(2, Duration.ofMillis(5), stalled(101 * MS, 121 * MS));
        order.asking(0, 100 * MS);
        order.asking(1, 132 * MS);
        assertThat(order.granted(1, 133 * MS)).isEqualTo(Verdict.OUT_OF_ORDER);
    }

    @Test
    void aStallBeforeThePassedWorkerAskedExplainsNothing() {
        ArrivalOrder order = new ArrivalOrder(2, Duration.ofMillis(5), stalled(50 * MS, 99 * MS));
        order.asking(0, 100 * MS);
        order.asking(1, 132 * MS);
        assertThat(order.granted(1, 133 * MS)).isEqualTo(Verdict.OUT_OF_ORDER);
    }

    @Test
    void oneWorkerPassedOutOfOrderOutweighsAnotherPassedInAStall() {
        // Worker 0's lead falls in the stall, worker 1's does not: the grant to worker 2 is out of order.
        ArrivalOrder order = new ArrivalOrder(3, Duration.ofMillis(5), stalled(101 * MS, 131 * MS));
        order.asking(0, 100 * MS);
        order.asking(1, 140 * MS);
        order.asking(2, 160 * MS);
        assertThat(order.granted(2, 161 * MS)).isEqualTo(Verdict.OUT_OF_ORDER);
    }

    /** A JVM that stood still over [start, end] and never else. */
    private static ArrivalOrder.StallClock stalled(long start, long end) {
        return (from, to) -> Math.max(0, Math.min(to, end) - Math.max(from, start));
    }
}
