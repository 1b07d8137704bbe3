package dev.distlock.core;

import dev.distlock.testsupport.VirtualThreads;
import org.junit.jupiter.api.Test;

/**
 * Runs on the build's JDK beside {@link VirtualThreadsTest}, which only a Java 21+ JDK runs (the
 * virtual-threads profile): skipped, saying why and how to run them, when none is configured.
 */
class Java21LaneTest {

    @Test
    void virtualThreadTestsRunOnTheConfiguredJava21Jdk() {
        VirtualThreads.requireJava21Jdk();
    }
}
