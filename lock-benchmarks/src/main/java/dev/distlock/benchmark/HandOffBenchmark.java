package dev.distlock.benchmark;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.testsupport.RedisServer;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Cross-JVM hand-off latency in Redis round trips: this JVM and a child JVM play {@link HandOffPingPong} on
 * one lock for a few seconds per variant and round. Variants: the fair lock with its grant carried in the
 * wake-up message (distlock's default), the same with {@code LockClientOptions.Builder.grantsInMessages(false)}
 * in both JVMs (the waiter takes its grant up with an attempt of its own: the "before"), the reentrant
 * lock both ways, and the floor of any hand-off through Redis ({@link HandOffTurn.PubSubFloor}: one bare
 * PUBLISH wakes a parked subscriber, nothing is held), timed the same way, so that a lock's figure can be read
 * against what this host allows.
 * One round trip is the p50 of one uncontended {@code lock()} of a free lock (one script call), timed by both
 * sides during the variant's own ping-pong, after the same idle spell as each hand-off (see {@link
 * HandOffPingPong.Measured}); each variant's p50 hand-off is divided by it. The same call's p50 in a tight
 * loop is printed beside it. Rounds
 * run the variants in rotated order, and the report gives each ratio's median and min-max over rounds.
 *
 * <p>Run: {@code java -jar lock-benchmarks/target/lock-benchmarks.jar handoff [rounds] [seconds per variant]}.
 */
final class HandOffBenchmark {

    static final String COMMAND = "handoff";

    /**
     * Set to {@code false} in the fair "before"'s child JVMs: their {@link DistlockProvider} then builds its
     * client with {@code grantsInMessages(false)}.
     */
    static final String GRANTS_PROPERTY = "distlock.benchmark.grants-in-messages";

    /** A variant: its lock kind (or the floor), and whether grants ride in wake-up messages. */
    private record Variant(String label, String kind, boolean messageGrants) {}

    private static final List<Variant> VARIANTS = List.of(
            new Variant("fair, grant in the message", "fair", true),
            new Variant("fair, grant taken by an attempt (before)", "fair", false),
            new Variant("reentrant, grant in the message", "reentrant", true),
            new Variant("reentrant, grant taken by an attempt (before)", "reentrant", false),
            new Variant("floor: a bare PUBLISH wakes a parked subscriber, no lock", HandOffTurn.FLOOR, true));

    private HandOffBenchmark() {}

    static int main(String[] args, PrintStream out) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 5;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 3;
        Map<String, List<double[]>> results = new TreeMap<>(); // label -> per round {p50 µs, rtt µs, ratio}
        List<double[]> fair = new ArrayList<>(); // per round {distlock, distlock before, Redisson} ops/s
        try (RedisServer redis = RedisServer.start()) {
            out.printf(
                    "redis-server on port %d; %d rounds of %d s per variant; 2 JVMs (this one and a child)%n%n",
                    redis.port(), rounds, seconds);
            for (int round = 0; round < rounds; round++) {
                for (int i = 0; i < VARIANTS.size(); i++) {
                    Variant v = VARIANTS.get((i + round) % VARIANTS.size());
                    double[] r = session(redis, v, round, seconds);
                    results.computeIfAbsent(v.label(), k -> new ArrayList<>()).add(r);
                    out.printf(
                            Locale.ROOT,
                            "round %d, %s: hand-off p50 %.0f µs over %d hand-offs, round trip p50 %.0f µs"
                                    + " (in a tight loop %.0f µs): %.2f round trips%n",
                            round + 1,
                            v.label(),
                            r[0],
                            (long) r[3],
                            r[1],
                            r[4],
                            r[2]);
                }
                fair.add(fairRound(redis, round, seconds, out));
            }
        }
        out.println();
        out.println(
                "| variant | hand-off p50, round trips: median (min-max) over rounds | hand-off p50 µs (min-max) |");
        out.println("| --- | --- | --- |");
        for (Variant v : VARIANTS) {
            List<double[]> rs = results.get(v.label());
            out.printf(
                    Locale.ROOT,
                    "| %s | %.2f (%.2f-%.2f) | %.0f (%.0f-%.0f) |%n",
                    v.label(),
                    median(rs, 2),
                    min(rs, 2),
                    max(rs, 2),
                    median(rs, 0),
                    min(rs, 0),
                    max(rs, 0));
        }
        out.println();
        out.printf(
                "Fair lock, %d JVMs x %d threads, 1 key, ops/s: median (min-max) over rounds%n%n",
                FairAcrossProcesses.PROCESSES, FairAcrossProcesses.THREADS);
        out.println("| distlock | distlock, grant taken by an attempt (before) | Redisson RFairLock |"
                + " distlock/Redisson | distlock/before |");
        out.println("| --- | --- | --- | --- | --- |");
        List<double[]> ratios =
                fair.stream().map(f -> new double[] {f[0] / f[2], f[0] / f[1]}).toList();
        out.printf(
                Locale.ROOT,
                "| %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %.0f (%.0f-%.0f) | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) |%n",
                median(fair, 0),
                min(fair, 0),
                max(fair, 0),
                median(fair, 1),
                min(fair, 1),
                max(fair, 1),
                median(fair, 2),
                min(fair, 2),
                max(fair, 2),
                median(ratios, 0),
                min(ratios, 0),
                max(ratios, 0),
                median(ratios, 1),
                min(ratios, 1),
                max(ratios, 1));
        return fair.stream().anyMatch(f -> Double.isNaN(f[0] + f[1] + f[2])) ? 1 : 0;
    }

    /** One round of {@link FairAcrossProcesses}, the three runs in rotated order: {distlock, before, Redisson} ops/s. */
    private static double[] fairRound(RedisServer redis, int round, long seconds, PrintStream out) throws Exception {
        double[] opsPerSecond = new double[3];
        Duration warmup = Duration.ofSeconds(3);
        Duration measure = Duration.ofSeconds(seconds);
        for (int i = 0; i < 3; i++) {
            int run = (i + round) % 3;
            Library library = run == 2 ? Library.REDISSON : Library.DISTLOCK;
            List<String> options = run == 1 ? List.of("-D" + GRANTS_PROPERTY + "=false") : List.of();
            opsPerSecond[run] = FairAcrossProcesses.opsPerSecond(redis, library, options, warmup, measure);
        }
        out.printf(
                Locale.ROOT,
                "round %d, fair lock across 2 JVMs: distlock %.0f ops/s, before %.0f, Redisson %.0f%n",
                round + 1,
                opsPerSecond[0],
                opsPerSecond[1],
                opsPerSecond[2]);
        return opsPerSecond;
    }

    /** One variant's ping-pong: {p50 hand-off µs, round trip p50 µs, their ratio, hand-offs counted}. */
    private static double[] session(RedisServer redis, Variant v, int round, long seconds) throws Exception {
        Path file = Files.createTempFile("distlock-handoff", ".bin");
        String name = "handoff-" + v.kind() + "-" + round + "-" + System.nanoTime();
        try (LockClient client = HandOffPingPong.client(redis.uri(), v.messageGrants());
                ChildJvm child = ChildJvm.start(
                        "handoff-child",
                        HandOffPingPong.FLAG,
                        List.of(),
                        List.of(redis.uri(), v.kind(), name, file.toString(), Boolean.toString(v.messageGrants())),
                        System.err)) {
            double hot = roundTripMicros(client, name + "-free");
            child.await("ready", Duration.ofSeconds(60));
            HandOffPingPong side = new HandOffPingPong(file, 0);
            RedisLock probe = client.getLock(name + "-probe");
            HandOffPingPong.Measured ours;
            try (HandOffTurn turn = HandOffTurn.of(client, redis.uri(), v.kind(), name, 0)) {
                child.send("go");
                CompletableFuture<HandOffPingPong.Measured> mine =
                        CompletableFuture.supplyAsync(() -> side.play(turn, probe));
                TimeUnit.SECONDS.sleep(seconds);
                side.stop();
                ours = mine.get(60, TimeUnit.SECONDS);
            }
            HandOffPingPong.Measured theirs =
                    HandOffPingPong.Measured.decode(child.await("received", Duration.ofSeconds(60))
                            .substring("received".length())
                            .trim());
            List<Long> handOffs = new ArrayList<>(ours.received());
            handOffs.addAll(theirs.received());
            List<Long> roundTrips = new ArrayList<>(ours.roundTrips());
            roundTrips.addAll(theirs.roundTrips());
            double p50 = percentile(handOffs, 0.5);
            double rtt = percentile(roundTrips, 0.5);
            return new double[] {p50, rtt, p50 / rtt, handOffs.size(), hot};
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** The p50 of one uncontended lock() of a free lock, in µs: one script call, as the issue defines a round trip. */
    private static double roundTripMicros(LockClient client, String name) {
        RedisLock free = client.getLock(name);
        List<Long> calls = new ArrayList<>();
        for (int i = 0; i < 3000; i++) {
            long start = System.nanoTime();
            free.lock();
            long took = System.nanoTime() - start;
            free.unlock();
            if (i >= 1000) { // the first thousand warm up
                calls.add(TimeUnit.NANOSECONDS.toMicros(took));
            }
        }
        return percentile(calls, 0.5);
    }

    private static double percentile(List<Long> values, double p) {
        if (values.isEmpty()) {
            return Double.NaN;
        }
        List<Long> sorted = values.stream().sorted().toList();
        return sorted.get(Math.min(sorted.size() - 1, (int) (p * sorted.size())));
    }

    private static double median(List<double[]> rs, int i) {
        double[] xs = rs.stream().mapToDouble(r -> r[i]).sorted().toArray();
        return xs[xs.length / 2];
    }

    private static double min(List<double[]> rs, int i) {
        return rs.stream().mapToDouble(r -> r[i]).min().orElse(Double.NaN);
    }

    private static double max(List<double[]> rs, int i) {
        return rs.stream().mapToDouble(r -> r[i]).max().orElse(Double.NaN);
    }
}
