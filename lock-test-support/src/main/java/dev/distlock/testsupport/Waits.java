package dev.distlock.testsupport;

import java.time.Duration;

/**
 * Waits of pass/fail tests. A lock's wait time bounds Redis's answer too: a call whose wait is shorter than
 * a loaded host's stall fails as unavailable instead of granted or busy (a 200 ms wait did, beside a second
 * build on 2 cores), so no test waits that little for an outcome it asserts.
 */
public final class Waits {

    /**
     * The wait of a call that should find the lock held elsewhere and give up: the test pays it in full per
     * call, so it is not long, yet ten times the 200 ms a loaded host missed Redis's first answer by.
     */
    public static final Duration RUNS_OUT = Duration.ofSeconds(2);

    /** The wait of a call that should be granted: it returns at once when granted, so only a failure pays it. */
    public static final Duration GRANTED = Duration.ofSeconds(30);

    private Waits() {}
}
