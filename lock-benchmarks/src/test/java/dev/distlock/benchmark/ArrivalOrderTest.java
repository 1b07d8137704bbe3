package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

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
        assertThat(order.granted(0)).isTrue();
        assertThat(order.granted(1)).isTrue();
        assertThat(order.granted(2)).isTrue();
    }

    @Test
    void grantPastAnEarlierWaiterBreaksOrder() {
        ArrivalOrder order = new ArrivalOrder(2, Duration.ofMillis(5));
        order.asking(0, 100 * MS);
        order.asking(1, 110 * MS);
        assertThat(order.granted(1)).isFalse();
        // Worker 0 is still the oldest waiter and may take its turn now.
        assertThat(order.granted(0)).isTrue();
    }

    @Test
    void arrivalsWithinTheSlackMayQueueEitherWay() {
        ArrivalOrder order = new ArrivalOrder(2, Duration.ofMillis(5));
        order.asking(0, 100 * MS);
        order.asking(1, 104 * MS);
        assertThat(order.granted(1)).isTrue();
    }

    @Test
    void aWorkerThatIsNotWaitingIsNotPassed() {
        ArrivalOrder order = new ArrivalOrder(2, Duration.ofMillis(5));
        order.asking(0, 100 * MS);
        assertThat(order.granted(0)).isTrue();
        order.asking(1, 200 * MS);
        assertThat(order.granted(1)).isTrue();
    }
}
