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
        assertThat(back.orderUndecided()).isEqualTo(-1);
        assertThat(back.workerOps()).containsExactly(1, 1);
        assertThat(back.workerP99Nanos()).containsExactly(o.workerP99Nanos());
        assertThat(back.workerP99Nanos()[1]).isGreaterThan(back.workerP99Nanos()[0]);
        assertThat(back.latency().quantile(1.0)).isEqualTo(o.latency().quantile(1.0));
        assertThat(back.handOff().count()).isEqualTo(1);
        assertThat(back.remoteHandOff().count()).isEqualTo(1);
        assertThat(back.cpuNanos()).isEqualTo(5_000_000L);
        assertThat(back.error()).isEqualTo("boom: with spaces");
        assertThat(back.opsPerSecond()).isEqualTo(1.0);
    }

    @Test
    void keepsTheArrivalOrderCountsAcrossTheLine() {
        Tally a = new Tally();
        a.op(250_000, true);
        a.order(ArrivalOrder.Verdict.OUT_OF_ORDER);
        a.order(ArrivalOrder.Verdict.UNDECIDED);
        a.order(ArrivalOrder.Verdict.UNDECIDED);
        a.order(ArrivalOrder.Verdict.IN_ORDER);
        Outcome back = Outcome.decode(
                Outcome.of(List.of(a), true, 1_000_000_000L, -1, null).encode());

        assertThat(back.orderViolations()).isEqualTo(1);
        assertThat(back.orderUndecided()).isEqualTo(2);
        assertThat(back.error()).isNull();
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
        assertThat(merged.workerP99Nanos()).hasSize(2);
        assertThat(merged.cpuNanos()).isEqualTo(30);
        assertThat(merged.error()).isNull();
    }

    @Test
    void aWorkerWithoutMeasuredOpsHasNoP99AndTheWorstIsTheSlowestWorkersOwn() {
        Tally busy = new Tally();
        Tally slow = new Tally();
        Tally starved = new Tally();
        for (int i = 0; i < 1000; i++) {
            busy.op(100_000, true);
        }
        for (int i = 0; i < 10; i++) {
            slow.op(50_000_000, true);
        }
        starved.op(1, false); // only a warm-up op
        Outcome o = Outcome.of(List.of(busy, slow, starved), false, 1_000_000_000L, 1, null);

        assertThat(o.workerP99Nanos()[2]).isEqualTo(-1);
        RunResult r = RunResult.of(
                Scenario.CONTENDED_THREADS,
                Library.DISTLOCK,
                o,
                List.of(),
                new CommandStats.Snapshot(java.util.Map.of(), 0),
                new CommandStats.Snapshot(java.util.Map.of(), 0),
                null);
        // The pooled p99 is of the busy worker's ops; the slow worker's own p99 is 500 times longer.
        assertThat(r.p99Nanos()).isLessThan(200_000);
        assertThat(r.worstWorkerP99Nanos()).isGreaterThan(40_000_000);
    }
}
