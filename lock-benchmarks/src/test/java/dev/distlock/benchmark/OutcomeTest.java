package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class OutcomeTest {

    @Test
    void survivesTheLineAChildJvmPrints() {
        Tally a = new Tally();
        a.op(250_000, true);
        a.op(300_000, false);
        a.handOff(400_000, true);
        Tally b = new Tally();
        b.op(9_000_000, true);
        b.violations = 1;
        Outcome o = Outcome.of(List.of(a, b), false, 2_000_000_000L, 5_000_000L, "boom: with spaces");

        Outcome back = Outcome.decode(o.encode());

        assertThat(back.totalOps()).isEqualTo(3);
        assertThat(back.measuredOps()).isEqualTo(2);
        assertThat(back.violations()).isEqualTo(1);
        assertThat(back.orderViolations()).isEqualTo(-1);
        assertThat(back.workerOps()).containsExactly(1, 1);
        assertThat(back.latency().quantile(1.0)).isEqualTo(o.latency().quantile(1.0));
        assertThat(back.handOff().count()).isEqualTo(1);
        assertThat(back.remoteHandOff().count()).isEqualTo(1);
        assertThat(back.cpuNanos()).isEqualTo(5_000_000L);
        assertThat(back.error()).isEqualTo("boom: with spaces");
        assertThat(back.opsPerSecond()).isEqualTo(1.0);
    }

    @Test
    void mergedJvmsAddTheirRatesAndKeepEveryWorker() {
        Tally a = new Tally();
        a.op(1, true);
        a.op(1, true);
        Tally b = new Tally();
        b.op(1, true);
        Outcome first = Outcome.of(List.of(a), false, 1_000_000_000L, 10, null);
        Outcome second = Outcome.of(List.of(b), false, 500_000_000L, 20, null);

        Outcome merged = Outcome.merge(List.of(first, second));

        assertThat(merged.opsPerSecond()).isCloseTo(4.0, org.assertj.core.data.Offset.offset(1e-6));
        assertThat(merged.workerOps()).containsExactly(2, 1);
        assertThat(merged.cpuNanos()).isEqualTo(30);
        assertThat(merged.error()).isNull();
    }
}
