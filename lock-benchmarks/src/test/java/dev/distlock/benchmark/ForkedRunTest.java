package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlowTest;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A run forked into a JVM of its own (the benchmark's default) reports what that JVM measured, and a
 * run that fails there says why. The smoke test runs every scenario in one JVM to stay short; this
 * covers the forked path for a blocking and an async scenario.
 */
@SlowTest
class ForkedRunTest {

    private static final List<String> SHORT = List.of(
            "warmup=100ms",
            "firstWarmup=300ms",
            "measure=300ms",
            "threads=3",
            "asyncCallers=4",
            // C1 only: the child JVM starts in about half the time, and speed is not judged here.
            "childJvmOptions=-XX:TieredStopAtLevel=1 -XX:+UseSerialGC");

    @Test
    @Timeout(120)
    void aRunInAJvmOfItsOwnReportsWhatThatJvmMeasured() throws Exception {
        BenchmarkConfig config = BenchmarkConfig.fromSystemPropertiesAndArgs(SHORT.toArray(String[]::new));
        try (RedisServer redis = RedisServer.start()) {
            for (Map.Entry<Scenario, Library> run : List.of(
                    Map.entry(Scenario.CONTENDED_THREADS, Library.DISTLOCK),
                    Map.entry(Scenario.ASYNC_UNCONTENDED, Library.REDISSON))) {
                ForkedRun.Forked forked =
                        ForkedRun.inChild(config, run.getKey(), run.getValue(), redis.host(), redis.port(), System.out);
                String which = run.getKey() + " / " + run.getValue();
                assertThat(forked.pid())
                        .as(which + " pid")
                        .isNotEqualTo(ProcessHandle.current().pid());
                assertThat(ProcessHandle.of(forked.pid()).map(ProcessHandle::isAlive))
                        .as(which + ": the child has exited")
                        .isNotEqualTo(java.util.Optional.of(true));
                RunResult r = forked.result();
                assertThat(r.error()).as(which).isNull();
                assertThat(r.scenario()).isEqualTo(run.getKey());
                assertThat(r.library()).isEqualTo(run.getValue());
                assertThat(r.measuredOps()).as(which + " measured ops").isPositive();
                assertThat(r.violations()).as(which + " violations").isZero();
                assertThat(r.p99Nanos()).as(which + " p99").isGreaterThanOrEqualTo(r.p50Nanos());
                // Sampled by the child as its window opened and closed: its library's commands, its own CPU.
                assertThat(r.commandsPerOp()).as(which + " command mix").containsKey("evalsha");
                assertThat(r.clientCpuMicrosPerOp()).as(which + " client CPU").isPositive();
                assertThat(r.redisCpuMicrosPerOp()).as(which + " Redis CPU").isPositive();
            }
        }
    }

    @Test
    @Timeout(60)
    void aRunThatFailsInItsJvmSaysWhy() throws Exception {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        BenchmarkConfig config = BenchmarkConfig.fromSystemPropertiesAndArgs(SHORT.toArray(String[]::new));
        assertThatThrownBy(() -> ForkedRun.inChild(
                        config, Scenario.UNCONTENDED_SINGLE, Library.DISTLOCK, "127.0.0.1", closed, System.out))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContainingAll("connect", ":" + closed);
    }
}
