package dev.distlock.spring.metrics;

import java.util.concurrent.Callable;

/**
 * Marks lock calls made by the starter's own instrumentation, so that {@link MicrometerLockListener}
 * does not count them a second time (once per key for a multi-key lock). Holds taken directly through
 * {@code LockClient} are not marked and are counted by the listener. Infrastructure, not API.
 */
public final class RecordedByStarter {

    private static final ThreadLocal<Boolean> ACTIVE = new ThreadLocal<>();

    private RecordedByStarter() {
    }

    /** Runs {@code call} with this thread's acquire and release events left to the starter's instrumentation. */
    public static <T> T call(Callable<T> call) throws Exception {
        Boolean outer = ACTIVE.get();
        ACTIVE.set(Boolean.TRUE);
        try {
            return call.call();
        } finally {
            if (outer == null) {
                ACTIVE.remove();
            }
        }
    }

    static boolean onThisThread() {
        return ACTIVE.get() != null;
    }
}
