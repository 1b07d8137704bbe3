package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs the real benchmark (every scenario, every library, child JVMs included) with windows of a
 * fraction of a second: proves that it runs end to end, that every library does work and that no
 * library breaks mutual exclusion. The numbers themselves mean nothing at this length.
 */
class LockBenchmarkSmokeTest {

    @Test
    @Timeout(180) // a hung lock or child JVM must fail the build, not stall it
    void everyScenarioRunsForEveryLibraryWithoutViolations() throws Exception {
        Path output = Path.of("target", "benchmark-smoke.md");
        BenchmarkConfig config = BenchmarkConfig.fromSystemPropertiesAndArgs(
                "warmup=150ms",
                "processWarmup=300ms",
                "measure=300ms",
                "rounds=1",
                "output=" + output,
                // C1 only: the six child JVMs start in about half the time, and speed is not judged here.
                "childJvmOptions=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");

        LockBenchmark.Outcome outcome = LockBenchmark.run(config, System.out);

        List<RunResult> results = outcome.results();
        assertThat(results).hasSize(Scenario.values().length * Library.values().length);
        for (RunResult r : results) {
            String which = r.scenario().label(config) + " / " + r.library().label;
            assertThat(r.error()).as(which).isNull();
            assertThat(r.measuredOps()).as(which + " measured ops").isPositive();
            assertThat(r.opsPerSecond()).as(which + " ops/s").isPositive();
            assertThat(r.violations()).as(which + " violations").isZero();
            assertThat(r.p99Nanos())
                    .as(which + " p99")
                    .isGreaterThanOrEqualTo(r.p50Nanos())
                    .isPositive();
            // Every library needs Redis for every op except RedisLockRegistry's local hand-offs.
            assertThat(r.commandsPerOp()).as(which + " command mix").isNotEmpty();
        }
        Set<Scenario> covered = EnumSet.noneOf(Scenario.class);
        results.forEach(r -> covered.add(r.scenario()));
        assertThat(covered).containsExactlyInAnyOrder(Scenario.values());

        String md = Files.readString(output);
        assertThat(md)
                .isEqualTo(outcome.markdown())
                .contains("| scenario | library | ops/s | p50 | p99 | violations |")
                .contains("distlock/Redisson")
                .contains("distlock/RedisLockRegistry");
    }
}
