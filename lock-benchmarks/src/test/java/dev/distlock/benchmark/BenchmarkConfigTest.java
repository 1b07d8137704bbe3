package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class BenchmarkConfigTest {

    @Test
    void defaultsRunEveryScenarioForEveryPeerVariant() {
        BenchmarkConfig c = BenchmarkConfig.fromSystemPropertiesAndArgs();
        assertThat(c.libraries()).containsExactly(Library.values());
        assertThat(c.scenarios()).containsExactly(Scenario.values());
        assertThat(c.heldLocks()).isEqualTo(100_000);
        assertThat(c.heldLease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(c.asyncCallers()).isEqualTo(64);
    }

    @Test
    void oneScenarioRunsAloneByIdOrName() {
        assertThat(BenchmarkConfig.fromSystemPropertiesAndArgs("scenarios=10").scenarios())
                .containsExactly(Scenario.REACTIVE_CONTENDED);
        assertThat(BenchmarkConfig.fromSystemPropertiesAndArgs("scenarios=held_locks,5")
                        .scenarios())
                .containsExactly(Scenario.FAIR_CONTENDED, Scenario.HELD_LOCKS);
        assertThat(BenchmarkConfig.fromSystemPropertiesAndArgs("libraries=spring-pubsub,redisson-epoll")
                        .libraries())
                .containsExactly(Library.SPRING_PUB_SUB, Library.REDISSON_EPOLL);
    }

    @Test
    void roundOneWarmsUpLongerButNeverShorterThanTheOthers() {
        BenchmarkConfig c = BenchmarkConfig.fromSystemPropertiesAndArgs("warmup=2s", "firstWarmup=8s", "fork=false");
        assertThat(c.warmup(1)).isEqualTo(Duration.ofSeconds(8));
        assertThat(c.warmup(2)).isEqualTo(Duration.ofSeconds(2));
        BenchmarkConfig longer = BenchmarkConfig.fromSystemPropertiesAndArgs("warmup=10s", "firstWarmup=8s");
        assertThat(longer.warmup(1)).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void aForkedRunStartsColdSoEveryRoundWarmsUpLonger() {
        assertThat(BenchmarkConfig.fromSystemPropertiesAndArgs().fork()).isFalse();
        BenchmarkConfig c = BenchmarkConfig.fromSystemPropertiesAndArgs("warmup=2s", "firstWarmup=20s", "fork=true");
        assertThat(c.fork()).isTrue();
        assertThat(c.warmup(2)).isEqualTo(Duration.ofSeconds(20));
        BenchmarkConfig shared =
                BenchmarkConfig.fromSystemPropertiesAndArgs("warmup=2s", "firstWarmup=20s", "fork=false");
        assertThat(shared.warmup(2)).isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aForkedRunReadsTheSameSettingsForItsOneScenarioAndLibrary() {
        BenchmarkConfig c = BenchmarkConfig.fromSystemPropertiesAndArgs(
                "warmup=1500ms",
                "firstWarmup=7s",
                "processWarmup=3s",
                "measure=2s",
                "rounds=5",
                "threads=6",
                "processes=3",
                "processThreads=2",
                "heldLocks=1000",
                "heldLease=2s",
                "asyncCallers=16",
                "asyncThreads=3",
                "fairSlack=25ms",
                "childJvmOptions=-Xmx512m -XX:+UseSerialGC",
                "output=target/x.md");
        BenchmarkConfig run = BenchmarkConfig.fromSystemPropertiesAndArgs(
                c.forRun(Scenario.FAIR_CONTENDED, Library.REDISSON_EPOLL).toArray(String[]::new));
        assertThat(run.scenarios()).containsExactly(Scenario.FAIR_CONTENDED);
        assertThat(run.libraries()).containsExactly(Library.REDISSON_EPOLL);
        assertThat(run)
                .usingRecursiveComparison()
                .ignoringFields("scenarios", "libraries")
                .isEqualTo(c);
    }

    @Test
    void heldWindowCoversTwoRenewalsOfEveryHeldLock() {
        // Renewal every third of the lease: five sixths of it hold at least two whole renewal intervals.
        assertThat(BenchmarkConfig.fromSystemPropertiesAndArgs("heldLease=30s").heldWindow())
                .isEqualTo(Duration.ofSeconds(25));
        // Never shorter than the measured window.
        assertThat(BenchmarkConfig.fromSystemPropertiesAndArgs("heldLease=600ms", "measure=2s")
                        .heldWindow())
                .isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void badSettingsNameTheProblem() {
        assertThatThrownBy(() -> BenchmarkConfig.fromSystemPropertiesAndArgs("heldlocks=5"))
                .hasMessageContaining("Unknown setting 'heldlocks'")
                .hasMessageContaining("heldLocks");
        assertThatThrownBy(() -> BenchmarkConfig.fromSystemPropertiesAndArgs("libraries=spring"))
                .hasMessageContaining("Unknown library 'spring'")
                .hasMessageContaining("spring-spin, spring-pubsub");
        assertThatThrownBy(() -> BenchmarkConfig.fromSystemPropertiesAndArgs("scenarios=12"))
                .hasMessageContaining("Unknown scenario '12'")
                .hasMessageContaining("11");
        assertThatThrownBy(() -> BenchmarkConfig.fromSystemPropertiesAndArgs("heldLease=100ms"))
                .hasMessageContaining("heldLease must be at least 300ms");
        assertThatThrownBy(() -> BenchmarkConfig.fromSystemPropertiesAndArgs("fork=yes"))
                .hasMessageContaining("fork must be true or false: yes");
    }

    @Test
    void theCommandLineGetsOneLineAboutABadSettingInsteadOfAStackTrace() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stream = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertThat(LockBenchmark.configOrExplain(new String[] {"scenarios=99"}, stream))
                .isNull();
        assertThat(err.toString(StandardCharsets.UTF_8))
                .startsWith("lock-benchmarks: Unknown scenario '99'")
                .doesNotContain("Exception")
                .hasLineCount(1);
        assertThat(LockBenchmark.configOrExplain(new String[] {"scenarios=2", "rounds=1"}, stream))
                .isNotNull();
    }

    @Test
    void everyOtherRoundRunsTheLibrariesInReverse() {
        List<Library> given = List.of(Library.DISTLOCK, Library.RAW_FLOOR, Library.REDISSON);

        assertThat(BenchmarkRunner.libraryOrder(given, 1))
                .containsExactly(Library.DISTLOCK, Library.RAW_FLOOR, Library.REDISSON);
        assertThat(BenchmarkRunner.libraryOrder(given, 2))
                .containsExactly(Library.REDISSON, Library.RAW_FLOOR, Library.DISTLOCK);
        assertThat(BenchmarkRunner.libraryOrder(given, 3))
                .containsExactly(Library.DISTLOCK, Library.RAW_FLOOR, Library.REDISSON);
        assertThat(given).containsExactly(Library.DISTLOCK, Library.RAW_FLOOR, Library.REDISSON);
    }
}
