package dev.distlock.core.testing;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.function.LongSupplier;

/** A counter's value once it has stopped changing: what earlier tests set in motion has arrived. */
public final class Settled {

    private Settled() {}

    /** Reads {@code counter} until two reads 200 ms apart agree (at most 10 s), and returns that value. */
    public static long value(LongSupplier counter) {
        long[] last = {Long.MIN_VALUE};
        await().pollInterval(Duration.ofMillis(200))
                .atMost(Duration.ofSeconds(10))
                .until(() -> {
                    long now = counter.getAsLong();
                    boolean same = now == last[0];
                    last[0] = now;
                    return same;
                });
        return last[0];
    }
}
