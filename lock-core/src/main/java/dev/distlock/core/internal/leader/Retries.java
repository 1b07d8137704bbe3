package dev.distlock.core.internal.leader;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A candidate's failed attempts in a row: the next one waits twice as long as the one before, from
 * {@value #FIRST_MS} ms up to a bound, and only the first failure of a run is logged at WARN (then one
 * INFO line when an attempt gets an answer again), so a Redis that stays down fills no log.
 */
final class Retries {

    private static final Logger log = LoggerFactory.getLogger(Retries.class);

    /** The wait after the first failure. */
    static final long FIRST_MS = 100;

    private final String role;
    private final long maxMs;
    private int failures;

    Retries(String role, long maxMs) {
        this.role = role;
        this.maxMs = Math.max(1, maxMs);
    }

    /** One more failure; returns how long to wait before the next attempt, in ms. */
    long failed(Throwable error) {
        failures++;
        if (failures == 1) {
            log.warn(
                    "Leader candidate of role '{}' cannot take part in the election; retrying, at most {} ms apart, until it can: {}",
                    role,
                    maxMs,
                    error.toString());
        } else {
            log.debug("Leader candidate of role '{}': attempt {} failed: {}", role, failures, error.toString());
        }
        return Math.min(maxMs, FIRST_MS << Math.min(failures - 1, 20));
    }

    /** An attempt got its answer: the next failure starts a new run. */
    void answered() {
        if (failures > 0) {
            log.info("Leader candidate of role '{}' reached Redis again after {} failed attempts", role, failures);
            failures = 0;
        }
    }
}
