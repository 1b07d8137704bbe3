package dev.distlock.benchmark;

import dev.distlock.core.LockClientOptions;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.util.Locale;
import java.util.Properties;

/**
 * The report's title and the prose before its tables: the machine and the settings of the run, the
 * libraries compared with their versions and defaults, and what one op and one cell are.
 */
final class ReportHeader {

    private ReportHeader() {}

    static void append(StringBuilder md, BenchmarkConfig config, String redisVersion, Duration took) {
        md.append("# distlock benchmark\n\n");
        String warmups = config.fork()
                ? String.format(
                        Locale.ROOT,
                        "every run of scenarios 1-3, 5 and 7-10 in a JVM of its own (forked, so that no library inherits "
                                + "another's JIT profile, threads or garbage), warm-up %s there as the JIT starts cold "
                                + "(scenario 4's child JVMs: %s)",
                        Report.seconds(config.warmup(1)),
                        Report.seconds(config.processWarmup()))
                : String.format(
                        Locale.ROOT,
                        "every run in this JVM, warm-up %s (round 1, where the JIT compiles each library's paths: %s; "
                                + "scenario 4's fresh child JVMs: %s)",
                        Report.seconds(config.warmup()),
                        Report.seconds(config.warmup(1)),
                        Report.seconds(config.processWarmup()));
        md.append(String.format(
                Locale.ROOT,
                "Redis %s on 127.0.0.1 started by the benchmark; %d CPUs; Java %s; %s, measured %s per run (scenario 6: "
                        + "%s, at least two renewals of every held lock with a %s lease); %d rounds, libraries interleaved "
                        + "in each, in reverse order every other round; run took %.0f s.%n%n",
                redisVersion,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                warmups,
                Report.seconds(config.measure()),
                Report.seconds(config.heldWindow()),
                Report.seconds(config.heldLease()),
                config.rounds(),
                took.toMillis() / 1000.0));
        md.append("Libraries, each with its defaults: distlock ")
                .append(version("dev.distlock", "distlock-core", "dev.distlock.core.LockClient"))
                .append(" (RedisLock with the watchdog lease; lock cohorting on by default, up to "
                        + LockClientOptions.DEFAULT_LOCAL_HAND_OFFS + " local hand-offs within "
                        + LockClientOptions.DEFAULT_LOCAL_HAND_OFF_WINDOW.toMillis() + " ms of a grant in Redis;"
                        + " Lettuce on Netty's epoll transport, whose jar the benchmark has), Redisson ")
                .append(version("org.redisson", "redisson", "org.redisson.Redisson"))
                .append(
                        " (RLock.lock() without lease time; default NIO transport, and `TransportMode.EPOLL` as \"Redisson EPOLL\"), "
                                + "Spring Integration ")
                .append(version(
                        "org.springframework.integration",
                        "spring-integration-redis",
                        "org.springframework.integration.redis.util.RedisLockRegistry"))
                .append(" (RedisLockRegistry with its default expiry, in its default SPIN lock type and in PUB_SUB). "
                        + "RedisLockRegistry has no fair, async or reactive locks, so it is not in scenarios 5-10. "
                        + "The raw floor is not a lock: one EVALSHA taking a key (SET NX PX) and one deleting it, "
                        + "Lettuce's sync API on one connection, in scenarios 1 and 2 only; \"raw floor again\" is the same "
                        + "code run once more beside it, an A/A comparison that shows how far two runs of identical code "
                        + "differ within a round.\n\n");
        md.append(
                "One op = lock; occupancy check; unlock, timed as a whole (async and reactive: from the call to the confirmed "
                        + "release). Each cell is the median over the rounds with the lowest and highest round in brackets. "
                        + "Violations: a holder found someone else inside, summed over the rounds; the check is a counter in "
                        + "shared memory (a memory-mapped file for the child JVMs of scenario 4), so it costs no Redis command.\n\n");
    }

    /**
     * A library's version: from the pom.properties Maven puts in its jar, else the jar manifest,
     * else "(dev build)" for classes straight from a reactor build.
     */
    static String version(String groupId, String artifactId, String className) {
        String resource = "META-INF/maven/" + groupId + "/" + artifactId + "/pom.properties";
        try (InputStream in = ReportHeader.class.getClassLoader().getResourceAsStream(resource)) {
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
