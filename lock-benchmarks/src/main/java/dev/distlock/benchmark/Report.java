package dev.distlock.benchmark;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/** Renders the results as Markdown: the main table, the distlock ratios and the Redis command mix. */
final class Report {

    private Report() {}

    static String markdown(BenchmarkConfig config, String redisVersion, List<RunResult> results, Duration took) {
        StringBuilder md = new StringBuilder();
        md.append("# distlock benchmark\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Redis %s on 127.0.0.1 started by the benchmark; %d CPUs; Java %s; warm-up %s (scenario 4's fresh child JVMs: %s), "
                        + "measured %s per run; each figure is the median of %d runs, libraries interleaved; run took %.0f s.%n%n",
                redisVersion,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                seconds(config.warmup()),
                seconds(config.processWarmup()),
                seconds(config.measure()),
                config.rounds(),
                took.toMillis() / 1000.0));
        md.append("Libraries, all with their defaults: distlock ")
                .append(version("dev.distlock", "lock-core", "dev.distlock.core.LockClient"))
                .append(" (RedisLock, watchdog lease), Redisson ")
                .append(version("org.redisson", "redisson", "org.redisson.Redisson"))
                .append(" (RLock.lock() without lease time), Spring Integration ")
                .append(version(
                        "org.springframework.integration",
                        "spring-integration-redis",
                        "org.springframework.integration.redis.util.RedisLockRegistry"))
                .append(" (RedisLockRegistry, default lock type and expiry).\n\n");
        md.append(
                "One op = lock(); occupancy check; unlock(); p50/p99 are of the whole op. Violations: a holder found someone else "
                        + "inside (scenarios 1-3: an AtomicInteger per key; scenario 4: INCRBY/DECRBY of an occupancy key in Redis, "
                        + "which adds two round trips to every critical section).\n\n");

        md.append("| scenario | library | ops/s | p50 | p99 | violations |\n");
        md.append("|---|---|---:|---:|---:|---:|\n");
        for (RunResult r : results) {
            if (r.ok()) {
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %,.0f | %s | %s | %d |%n",
                        r.scenario().label(config),
                        r.library().label,
                        r.opsPerSecond(),
                        millis(r.p50Nanos()),
                        millis(r.p99Nanos()),
                        r.violations()));
            } else {
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | failed: %s | | | %d |%n",
                        r.scenario().label(config),
                        r.library().label,
                        r.error().replace('|', '/'),
                        r.violations()));
            }
        }

        if (config.libraries().contains(Library.DISTLOCK) && config.libraries().size() > 1) {
            List<Library> others = config.libraries().stream()
                    .filter(l -> l != Library.DISTLOCK)
                    .toList();
            md.append("\n## distlock relative to the others\n\n");
            md.append(
                    "Throughput ratio (ops/s of distlock divided by the other's; above 1 means distlock is faster) and "
                            + "p50 latency ratio (distlock's p50 divided by the other's; below 1 means distlock is quicker).\n\n");
            md.append("| scenario |");
            others.forEach(l -> md.append(" ops/s distlock/").append(l.label).append(" |"));
            others.forEach(l -> md.append(" p50 distlock/").append(l.label).append(" |"));
            md.append("\n|---|").append("---:|".repeat(others.size() * 2)).append('\n');
            for (Scenario s : config.scenarios()) {
                Optional<RunResult> mine = find(results, s, Library.DISTLOCK);
                md.append("| ").append(s.label(config)).append(" |");
                for (Library other : others) {
                    md.append(' ')
                            .append(ratio(mine, find(results, s, other), RunResult::opsPerSecond))
                            .append(" |");
                }
                for (Library other : others) {
                    md.append(' ')
                            .append(ratio(mine, find(results, s, other), r -> (double) r.p50Nanos()))
                            .append(" |");
                }
                md.append('\n');
            }
        }

        md.append("\n## Cost per op\n\n");
        md.append(
                "Counters over the measured window divided by the ops of the window. Client CPU: the benchmark JVM, or both "
                        + "child JVMs in scenario 4 (all their threads: callers, event loops, schedulers, JIT). Redis CPU: user + system "
                        + "time of redis-server. Scenario 4 includes the occupancy check's two commands in both. Commands: INFO commandstats; "
                        + "Redis also counts the commands a Lua script runs, so `evalsha` is the round trip and most commands after it "
                        + "are its insides. The benchmark's own INFO/FLUSHALL/INCRBY/DECRBY are left out; rates below 0.005 are not "
                        + "shown.\n\n");
        md.append("| scenario | library | client CPU µs/op | Redis CPU µs/op | commands/op | breakdown |\n");
        md.append("|---|---|---:|---:|---:|---|\n");
        for (RunResult r : results) {
            if (!r.ok()) {
                continue;
            }
            double sum = r.commandsPerOp().values().stream()
                    .mapToDouble(Double::doubleValue)
                    .sum();
            String breakdown = r.commandsPerOp().entrySet().stream()
                    .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue()))
                    .collect(Collectors.joining(", "));
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %s | %.2f | %s |%n",
                    r.scenario().label(config),
                    r.library().label,
                    micros(r.clientCpuMicrosPerOp()),
                    micros(r.redisCpuMicrosPerOp()),
                    sum,
                    breakdown));
        }
        return md.toString();
    }

    static void write(Path file, String markdown) throws IOException {
        Path dir = file.toAbsolutePath().getParent();
        if (dir != null) {
            Files.createDirectories(dir);
        }
        Files.writeString(file, markdown);
    }

    /** Milliseconds with three significant digits, so sub-millisecond and slow values both read well. */
    static String millis(long nanos) {
        double ms = nanos / 1e6;
        if (ms >= 100) {
            return String.format(Locale.ROOT, "%.0f ms", ms);
        }
        if (ms >= 10) {
            return String.format(Locale.ROOT, "%.1f ms", ms);
        }
        if (ms >= 1) {
            return String.format(Locale.ROOT, "%.2f ms", ms);
        }
        return String.format(Locale.ROOT, "%.3f ms", ms);
    }

    private static String micros(double value) {
        return value < 0 ? "n/a" : String.format(Locale.ROOT, "%.0f", value);
    }

    private static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
    }

    private static Optional<RunResult> find(List<RunResult> results, Scenario s, Library l) {
        return results.stream()
                .filter(r -> r.scenario() == s && r.library() == l && r.ok())
                .findFirst();
    }

    private static String ratio(Optional<RunResult> mine, Optional<RunResult> theirs, ToDoubleFunction<RunResult> f) {
        if (mine.isEmpty() || theirs.isEmpty() || f.applyAsDouble(theirs.get()) == 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2f", f.applyAsDouble(mine.get()) / f.applyAsDouble(theirs.get()));
    }

    /**
     * A library's version: from the pom.properties Maven puts in its jar, else the jar manifest,
     * else "(dev build)" for classes straight from a reactor build.
     */
    static String version(String groupId, String artifactId, String className) {
        String resource = "META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = Report.class.getClassLoader().getResourceAsStream(resource)) {
            if (in != null) {
                Properties p = new Properties();
                p.load(in);
                if (p.getProperty("version") != null) {
                    return p.getProperty("version");
                }
            }
        } catch (IOException ignored) {
            // fall through to the manifest
        }
        try {
            String v = Class.forName(className).getPackage().getImplementationVersion();
            return v != null ? v : "(dev build)";
        } catch (ClassNotFoundException e) {
            return "?";
        }
    }
}
