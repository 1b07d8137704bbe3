package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReportTest {

    private final BenchmarkConfig config =
            BenchmarkConfig.fromSystemPropertiesAndArgs("rounds=2", "scenarios=1", "libraries=distlock,redisson");
    private final CommandStats.Snapshot counters = new CommandStats.Snapshot(Map.of(), 0);

    private RunResult run(Library library, long opsInOneSecond) {
        Tally t = new Tally();
        for (int i = 0; i < opsInOneSecond; i++) {
            t.op(100_000, true);
        }
        Outcome o = Outcome.of(List.of(t), false, 1_000_000_000L, 1_000_000L, null);
        return RunResult.of(Scenario.UNCONTENDED_SINGLE, library, o, List.of(), counters, counters, null);
    }

    @Test
    void cellsAreMediansWithTheRangeAndRatiosArePerRound() {
        List<RunResult> runs = List.of(
                run(Library.DISTLOCK, 200),
                run(Library.REDISSON, 100),
                run(Library.DISTLOCK, 300),
                run(Library.REDISSON, 100));

        String md = Report.markdown(config, "7.0", runs, Duration.ofSeconds(1));

        assertThat(md)
                .contains("| 1. uncontended, 1 thread | distlock | 250 (200-300) |")
                .contains("| 1. uncontended, 1 thread | 2.50 (2.00-3.00) |")
                .doesNotContain("## Failed runs");
    }

    @Test
    void theCrossJvmHandOffIsAlsoGivenInRoundTripsOfItsOwnRound() {
        BenchmarkConfig processes =
                BenchmarkConfig.fromSystemPropertiesAndArgs("rounds=2", "scenarios=4", "libraries=distlock");
        List<RunResult> runs = List.of(crossJvm(400_000, 100_000), crossJvm(900_000, 450_000));

        String md = Report.markdown(processes, "7.0", runs, Duration.ofSeconds(1));

        // Hand-off p50 0.4 and 0.9 ms over round trips of 0.1 and 0.45 ms: 4.0 and 2.0 round trips.
        assertThat(md).contains("| 3.0 (2.0-4.0) | - |");
    }

    /** A scenario-4 run whose cross-JVM hand-offs all took {@code handOffNanos}, with that round trip. */
    private RunResult crossJvm(long handOffNanos, long roundTripNanos) {
        Tally t = new Tally();
        for (int i = 0; i < 100; i++) {
            t.op(100_000, true);
            t.handOff(handOffNanos, true);
        }
        Outcome o = Outcome.of(List.of(t), false, 1_000_000_000L, 1_000_000L, null);
        return RunResult.of(
                        Scenario.CONTENDED_PROCESSES, Library.DISTLOCK, o, List.of(50L, 50L), counters, counters, null)
                .withRoundTrip(roundTripNanos);
    }

    @Test
    void aFailedRoundIsListedAndLeftOutOfTheFigures() {
        List<RunResult> runs = List.of(
                run(Library.DISTLOCK, 200),
                run(Library.REDISSON, 100),
                RunResult.failed(Scenario.UNCONTENDED_SINGLE, Library.DISTLOCK, new IllegalStateException("boom")),
                run(Library.REDISSON, 100));

        String md = Report.markdown(config, "7.0", runs, Duration.ofSeconds(1));

        assertThat(md)
                .contains("| 1. uncontended, 1 thread | distlock (1 of 2 rounds failed, see below) | 200 |")
                .contains("## Failed runs")
                .contains("- 1. uncontended, 1 thread, distlock, round 2: java.lang.IllegalStateException: boom")
                // Only round 1 has both libraries running cleanly.
                .contains("| 1. uncontended, 1 thread | 2.00 |");
    }
}
