package dev.distlock.benchmark;

import dev.distlock.testsupport.RedisServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.Lock;

/**
 * The worker side of the multi-process scenario: one child JVM started by {@link ChildJvm}.
 *
 * <p>Protocol on stdin/stdout (logging goes to stderr, so stdout carries only this): the child
 * opens its library client, maps the shared occupancy file and prints {@code READY}; the parent sends {@code GO} to all children
 * at once so their windows line up; the child runs warm-up and window and prints one
 * {@code RESULT} line. If stdin closes before that, the parent is gone and the child halts, so no
 * orphan keeps hammering Redis.
 */
final class ChildProcess {

    static final String FLAG = "--child";
    static final String READY = "READY";
    static final String GO = "GO";

    private ChildProcess() {}

    /** The arguments of a child that runs {@code threads} threads on {@code key}'s lock (fair when {@code fair}). */
    static List<String> args(
            Library library,
            RedisServer redis,
            String key,
            Path occupancy,
            int threads,
            Duration warmup,
            Duration measure,
            boolean fair) {
        return List.of(
                "library=" + library.id,
                "host=" + redis.host(),
                "port=" + redis.port(),
                "key=" + key,
                "occupancy=" + occupancy,
                "threads=" + threads,
                "warmupMs=" + warmup.toMillis(),
                "measureMs=" + measure.toMillis(),
                "fair=" + fair);
    }

    static void main(String[] args) throws Exception {
        Map<String, String> a = new HashMap<>();
        for (String arg : args) {
            int eq = arg.indexOf('=');
            a.put(arg.substring(0, eq), arg.substring(eq + 1));
        }
        Library library = Library.byId(a.get("library"));
        String host = a.get("host");
        int port = Integer.parseInt(a.get("port"));
        int threads = Integer.parseInt(a.get("threads"));
        Duration warmup = Duration.ofMillis(Long.parseLong(a.get("warmupMs")));
        Duration measure = Duration.ofMillis(Long.parseLong(a.get("measureMs")));

        PrintStream out = ChildJvm.protocolChannel();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Occupancy occupancy = Occupancy.mapped(Path.of(a.get("occupancy")));
        try (LockProvider provider = library.open(host, port, Library.DEFAULT_LEASE)) {
            Workload.prime(
                    provider.lock("bench-prime-" + ProcessHandle.current().pid()));
            List<Lock> locks = new ArrayList<>();
            List<Occupancy.Slot> slots = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                // fair=true: the fair lock (HandOffBenchmark's fair lock across two JVMs)
                locks.add("true".equals(a.get("fair")) ? provider.fairLock(a.get("key")) : provider.lock(a.get("key")));
                slots.add(occupancy.slot(a.get("key")));
            }
            out.println(READY);
            if (!GO.equals(in.readLine())) {
                return; // parent gave up before the start
            }
            Thread orphanGuard = new Thread(
                    () -> {
                        try {
                            while (in.readLine() != null) {
                                // the parent sends nothing more; wait for end of stream
                            }
                        } catch (Exception ignored) {
                            // stream broken: same as closed
                        }
                        Runtime.getRuntime().halt(3);
                    },
                    "bench-orphan-guard");
            orphanGuard.setDaemon(true);
            orphanGuard.start();

            Outcome o = Workload.threads(locks, slots, null, warmup, measure, Workload.Window.NONE);
            out.println(o.encode());
        }
    }
}
