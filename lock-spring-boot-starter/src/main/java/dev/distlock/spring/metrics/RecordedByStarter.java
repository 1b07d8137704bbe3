package dev.distlock.spring.metrics;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Marks lock calls made by the starter's own instrumentation, so that {@link MicrometerLockListener}
 * does not count them a second time (once per key for a multi-key lock). Holds taken directly through
 * {@code LockClient} are not marked and are counted by the listener. Infrastructure, not API.
 *
 * <p>Calls cannot be marked by thread alone: the events of async calls, and some of blocking calls,
 * fire on Redis client threads. Calls are marked by lock name and label too, from before the
 * acquisition until the release is answered; a direct {@code LockClient} use of the same name under
 * the same label meanwhile is left to the starter as well (not counted by the listener).
 */
public final class RecordedByStarter {

    private static final ThreadLocal<Boolean> ACTIVE = new ThreadLocal<>();
    /** (name, label) of async calls in flight, with how many. */
    private static final Map<List<String>, Integer> ASYNC = new ConcurrentHashMap<>();

    private RecordedByStarter() {}

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

    /**
     * Leaves the events of {@code names} under {@code label} to the starter's instrumentation until
     * the returned action first runs, whatever thread they fire on.
     */
    public static Runnable marked(List<String> names, String label) {
        List<List<String>> marks =
                names.stream().map(name -> List.of(name, label)).toList();
        marks.forEach(mark -> ASYNC.merge(mark, 1, Integer::sum));
        AtomicBoolean ended = new AtomicBoolean();
        return () -> {
            if (ended.compareAndSet(false, true)) {
                marks.forEach(mark -> ASYNC.computeIfPresent(mark, (k, n) -> n == 1 ? null : n - 1));
            }
        };
    }

    static boolean onThisThread() {
        return ACTIVE.get() != null;
    }

    static boolean isMarked(String name, String label) {
        return !ASYNC.isEmpty() && ASYNC.containsKey(List.of(name, label));
    }
}
