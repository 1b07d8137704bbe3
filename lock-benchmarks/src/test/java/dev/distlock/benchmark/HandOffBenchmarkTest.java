package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.testsupport.SlowTest;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Runs the {@code handoff} command for one short round (child JVMs included): it ends, every variant
 * counted hand-offs, and the fair lock across processes ran for both libraries without a violation. The
 * numbers mean nothing at this length.
 */
@SlowTest
class HandOffBenchmarkTest {

    @Test
    @Timeout(420) // eleven child JVMs (five ping-pong sides, six fair-lock workers), on a loaded 2-core machine
    void oneRoundRunsEveryVariantAndBothLibraries() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

        int exit = HandOffBenchmark.main(new String[] {"1", "1"}, out);

        String report = bytes.toString(StandardCharsets.UTF_8);
        assertThat(exit).as(report).isZero();
        assertThat(report)
                .contains("| fair, grant in the message |")
                .contains("| fair, grant taken by an attempt (before) |")
                .contains("| reentrant, grant in the message |")
                .contains("| reentrant, grant taken by an attempt (before) |")
                .contains("| floor: a bare PUBLISH wakes a parked subscriber, no lock |")
                .contains("distlock/Redisson")
                .doesNotContain("NaN")
                .doesNotContain("over 0 hand-offs");
    }
}
