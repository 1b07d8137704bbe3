package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.DistributedLockConfigurationException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Turns a lock configuration failure into Spring Boot's "APPLICATION FAILED TO START" report. */
class DistributedLockFailureAnalyzer extends AbstractFailureAnalyzer<DistributedLockConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, DistributedLockConfigurationException cause) {
        return new FailureAnalysis(cause.getDescription(), cause.getAction(), cause);
    }
}
