package dev.distlock.benchmark;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * The worker side of the multi-process scenario: one child JVM started by {@link ChildJvm}.
 *
 * <p>Protocol on stdin/stdout (logging goes to stderr, so stdout carries only this): the child
 * opens its library client and prints {@code READY}; the parent sends {@code GO} to all children
 * at once so their windows line up; the child runs warm-up and window and prints one
 * {@code RESULT} line. If stdin closes before that, the parent is gone and the child halts, so no
 * orphan keeps hammering Redis.
 */
final class ChildProcess {

    static final String FLAG = "--child";
    static final String READY = "READY";
    static final String GO = "GO";
    static final String RESULT = "RESULT";

    private ChildProcess() {}

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

        // stdout is the protocol channel: keep it for ourselves and send anything a library might
        // print there to stderr instead.
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        System.setOut(System.err);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        RedisClient plain = RedisClient.create(RedisURI.create(host, port));
        try (StatefulRedisConnection<String, String> check = plain.connect();
                LockProvider provider = library.open(host, port)) {
            Workload.prime(provider, "bench-prime-" + ProcessHandle.current().pid());
            check.sync().ping();
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

            Workload.Outcome o = Workload.run(
                    provider,
                    Collections.nCopies(threads, a.get("key")),
                    Occupancy.redis(check.sync()),
                    warmup,
                    measure,
                    Workload.Window.NONE);
            out.println(encode(o));
        } finally {
            plain.shutdown();
        }
    }

    static String encode(Workload.Outcome o) {
        // The error text is last because it may contain spaces.
        return String.join(
                " ",
                RESULT,
                Long.toString(o.totalOps()),
                Long.toString(o.measuredOps()),
                Long.toString(o.violations()),
                Long.toString(o.windowNanos()),
                Long.toString(o.cpuNanos()),
                o.latency().encode(),
                o.error() == null ? "-" : o.error().replace('\n', ' '));
    }

    static Workload.Outcome decode(String line) {
        String[] f = line.split(" ", 8);
        if (f.length != 8 || !f[0].equals(RESULT)) {
            throw new IllegalArgumentException("Not a child result line: " + line);
        }
        return new Workload.Outcome(
                Long.parseLong(f[1]),
                Long.parseLong(f[2]),
                Long.parseLong(f[3]),
                Long.parseLong(f[4]),
                Long.parseLong(f[5]),
                LatencyHistogram.decode(f[6]),
                f[7].equals("-") ? null : f[7]);
    }
}
