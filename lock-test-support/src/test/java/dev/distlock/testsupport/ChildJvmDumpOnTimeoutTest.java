package dev.distlock.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * A test that times out while its child JVM runs: the failure is the timeout, and the output holds the
 * test JVM's thread dump (JUnit's, switched on in junit-platform.properties) and the child's
 * ({@link ChildJvmDumpOnTimeout}, found by autodetection), and the child is gone.
 */
class ChildJvmDumpOnTimeoutTest {

    @Test
    void aTimedOutTestPrintsBothThreadDumpsAndKillsItsChildJvm() {
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream out = System.out;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            LauncherFactory.create()
                    .execute(
                            LauncherDiscoveryRequestBuilder.request()
                                    .selectors(selectClass(HangsWithAChild.class))
                                    .build(),
                            listener);
        } finally {
            System.setOut(out);
        }
        String output = captured.toString(StandardCharsets.UTF_8);
        out.print(output);

        TestExecutionSummary summary = listener.getSummary();
        assertThat(summary.getTestsFailedCount()).isEqualTo(1);
        List<TestExecutionSummary.Failure> failures = summary.getFailures();
        assertThat(failures.get(0).getException()).isInstanceOf(TimeoutException.class);
        // JUnit's dump of this JVM shows the hung test method; jcmd's dump of the child shows its main thread.
        assertThat(output).contains("HangsWithAChild.waitsForItsChild");
        assertThat(output).contains("Child JVM ").contains("Sleeper.main");
        Matcher pid = Pattern.compile("Child JVM (\\d+) ").matcher(output);
        assertThat(pid.find()).isTrue();
        await().atMost(Duration.ofMinutes(1))
                .until(() -> ProcessHandle.of(Long.parseLong(pid.group(1)))
                        .map(p -> !p.isAlive())
                        .orElse(true));
    }

    /** Run only by the test above (a static nested class without @Nested: not discovered on its own). */
    static class HangsWithAChild {

        private Process child;

        @BeforeEach
        void startChild() throws IOException {
            child = new ProcessBuilder(
                            Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            "-cp",
                            System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")),
                            Sleeper.class.getName())
                    .redirectErrorStream(true)
                    .start();
            // Wait until its main runs, so the timeout below finds a JVM that answers jcmd.
            new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)).readLine();
        }

        @AfterEach
        void killChild() {
            child.destroyForcibly();
        }

        @Test
        @Timeout(value = 1, unit = TimeUnit.SECONDS)
        void waitsForItsChild() throws InterruptedException {
            child.waitFor();
        }
    }

    /** The child JVM: says it runs, then sleeps until it is killed. */
    static final class Sleeper {

        public static void main(String[] args) throws InterruptedException {
            System.out.println("running");
            System.out.flush();
            Thread.sleep(TimeUnit.MINUTES.toMillis(10));
        }
    }
}
