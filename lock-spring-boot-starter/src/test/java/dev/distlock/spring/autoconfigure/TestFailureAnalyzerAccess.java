package dev.distlock.spring.autoconfigure;

import org.springframework.boot.diagnostics.FailureAnalysis;

/** Lets tests run the package-private failure analyzer exactly as Spring Boot does. */
public final class TestFailureAnalyzerAccess {

    public FailureAnalysis analyze(Throwable failure) {
        return new DistributedLockFailureAnalyzer().analyze(failure);
    }
}
