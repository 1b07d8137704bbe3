package dev.distlock.benchmark;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/** The workloads; thread, caller and process counts come from {@link BenchmarkConfig}. */
enum Scenario {

    /** Pure cost of one lock+unlock: no waiting, no concurrency. */
    UNCONTENDED_SINGLE("1", "uncontended, 1 thread"),
    /** Client-side scalability on a shared connection: many threads, no waiting for each other. */
    UNCONTENDED_THREADS("2", "uncontended, %d threads, own keys"),
    /** Hand-off speed between waiters of one JVM. */
    CONTENDED_THREADS("3", "contended, %d threads, 1 key"),
    /** Hand-off across processes, where no library can fall back on a local lock alone. */
    CONTENDED_PROCESSES("4", "contended, %d JVMs x %d threads, 1 key"),
    /** Fair locks under contention: throughput while keeping arrival order. */
    FAIR_CONTENDED("5", "fair lock, contended, %d threads, 1 key", LockProvider.Feature.FAIR),
    /**
     * Many held watchdog locks on one client: how long other lock calls of that client wait behind
     * lease renewal, and what a held lock costs in heap.
     */
    HELD_LOCKS("6", "%,d held locks, 1 thread locking free keys", LockProvider.Feature.ASYNC),
    /** The CompletionStage API, every caller on its own key. */
    ASYNC_UNCONTENDED("7", "async, %d callers, own keys", LockProvider.Feature.ASYNC),
    /** The CompletionStage API, every caller on one key. */
    ASYNC_CONTENDED("8", "async, %d callers, 1 key", LockProvider.Feature.ASYNC),
    /** The Reactor API, every caller on its own key. */
    REACTIVE_UNCONTENDED("9", "reactive, %d callers, own keys", LockProvider.Feature.REACTIVE),
    /** The Reactor API, every caller on one key. */
    REACTIVE_CONTENDED("10", "reactive, %d callers, 1 key", LockProvider.Feature.REACTIVE),
    /**
     * Redis Cluster of three masters: workers of two clients on keys spread over every master, so
     * wake-ups come from every shard; sharded pub/sub against the broadcast PUBLISH (see {@link ClusterRun}).
     */
    CLUSTER_CONTENDED("11", "Redis Cluster, 3 masters: contended, %d threads in 2 clients, %d keys");

    final String id;
    private final String format;
    private final LockProvider.@Nullable Feature needs;

    Scenario(String id, String format) {
        this(id, format, null);
    }

    Scenario(String id, String format, LockProvider.@Nullable Feature needs) {
        this.id = id;
        this.format = format;
        this.needs = needs;
    }

    /**
     * Whether {@code library} can run this scenario (RedisLockRegistry has no fair or async locks; the raw
     * floor runs the uncontended thread scenarios only).
     */
    boolean runsWith(Library library) {
        if (this == CLUSTER_CONTENDED || library == Library.DISTLOCK_PUBLISH) {
            return this == CLUSTER_CONTENDED && (library == Library.DISTLOCK || library == Library.DISTLOCK_PUBLISH);
        }
        if (library.isRawFloor()) {
            return this == UNCONTENDED_SINGLE || this == UNCONTENDED_THREADS; // it cannot wait
        }
        return needs == null || library.has(needs);
    }

    /** Whether workers share keys, so that grants pass from holder to holder. */
    boolean contended() {
        return switch (this) {
            case CONTENDED_THREADS,
                    CONTENDED_PROCESSES,
                    FAIR_CONTENDED,
                    ASYNC_CONTENDED,
                    REACTIVE_CONTENDED,
                    CLUSTER_CONTENDED -> true;
            default -> false;
        };
    }

    /** Whether the workers are async callers rather than threads. */
    boolean async() {
        return switch (this) {
            case ASYNC_UNCONTENDED, ASYNC_CONTENDED, REACTIVE_UNCONTENDED, REACTIVE_CONTENDED -> true;
            default -> false;
        };
    }

    String label(BenchmarkConfig config) {
        String text = switch (this) {
            case UNCONTENDED_SINGLE -> format;
            case UNCONTENDED_THREADS, CONTENDED_THREADS, FAIR_CONTENDED ->
                String.format(Locale.ROOT, format, config.threads());
            case CONTENDED_PROCESSES -> String.format(Locale.ROOT, format, config.processes(), config.processThreads());
            case HELD_LOCKS -> String.format(Locale.ROOT, format, config.heldLocks());
            case ASYNC_UNCONTENDED, ASYNC_CONTENDED, REACTIVE_UNCONTENDED, REACTIVE_CONTENDED ->
                String.format(Locale.ROOT, format, config.asyncCallers());
            case CLUSTER_CONTENDED -> String.format(Locale.ROOT, format, config.threads(), 3 * config.threads());
        };
        return id + ". " + text;
    }

    static Scenario byId(String id) {
        String wanted = id.trim();
        return Arrays.stream(values())
                .filter(s -> s.id.equals(wanted) || s.name().equalsIgnoreCase(wanted))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown scenario '" + id + "'; known: "
                        + Arrays.stream(values()).map(s -> s.id).collect(Collectors.joining(", "))));
    }
}
