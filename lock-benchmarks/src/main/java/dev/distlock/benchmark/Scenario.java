package dev.distlock.benchmark;

import java.util.Arrays;

/** The four workloads; thread and process counts come from {@link BenchmarkConfig}. */
enum Scenario {

    /** Pure cost of one lock+unlock: no waiting, no concurrency. */
    UNCONTENDED_SINGLE("1", "uncontended, 1 thread"),
    /** Client-side scalability on a shared connection: many threads, no waiting for each other. */
    UNCONTENDED_THREADS("2", "uncontended, %d threads, own keys"),
    /** Hand-off speed between waiters of one JVM. */
    CONTENDED_THREADS("3", "contended, %d threads, 1 key"),
    /** Hand-off across processes, where no library can fall back on a local lock. */
    CONTENDED_PROCESSES("4", "contended, %d JVMs x %d threads, 1 key");

    final String id;
    private final String format;

    Scenario(String id, String format) {
        this.id = id;
        this.format = format;
    }

    String label(BenchmarkConfig config) {
        String text = switch (this) {
            case UNCONTENDED_SINGLE -> format;
            case UNCONTENDED_THREADS, CONTENDED_THREADS -> String.format(format, config.threads());
            case CONTENDED_PROCESSES -> String.format(format, config.processes(), config.processThreads());
        };
        return id + ". " + text;
    }

    static Scenario byId(String id) {
        String wanted = id.trim();
        return Arrays.stream(values())
                .filter(s -> s.id.equals(wanted) || s.name().equalsIgnoreCase(wanted))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("Unknown scenario '" + id + "'; known: 1, 2, 3, 4"));
    }
}
