package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.function.Supplier;

/**
 * A real {@code redis-server} process on a free loopback port, without persistence. It can be
 * stopped, restarted on the same port, paused (SIGSTOP) and resumed (SIGCONT). Every server still
 * running when the JVM exits is killed.
 */
public final class RedisServer implements AutoCloseable {

    private static final Set<RedisServer> RUNNING = ConcurrentHashMap.newKeySet();
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);

    static {
        Runtime.getRuntime()
                .addShutdownHook(new Thread(() -> RUNNING.forEach(RedisServer::close), "redis-test-cleanup"));
    }

    private final int port;
    private final List<String> extraArgs;
    private final ServerDir dir;
    private final List<String> configLines;
    private volatile Process process;

    private RedisServer(int port, List<String> extraArgs) {
        this(port, extraArgs, null);
    }

    private RedisServer(int port, List<String> extraArgs, List<String> configLines) {
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        this.configLines = configLines == null ? null : List.copyOf(configLines);
        this.dir = new ServerDir(port);
    }

    /** Starts a server on a free port; extra arguments are passed as {@code redis-server} options. */
    public static RedisServer start(String... extraArgs) {
        return launched(() -> new RedisServer(freePort(), List.of(extraArgs)));
    }

    /**
     * Launches a server {@code made} on a port probed free, up to five times: the port may be taken by another
     * process between probing and binding (test JVMs start servers side by side), and another is picked then.
     */
    private static RedisServer launched(Supplier<RedisServer> made) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            RedisServer server = made.get();
            try {
                server.launch();
                return server;
            } catch (IllegalStateException e) {
                last = e;
                server.close();
            }
        }
        throw last;
    }

    /** A server with a second listener, and that listener's port. */
    public record WithSecondPort(RedisServer server, int port) {}

    /**
     * Starts a server on a free port with a second listener (a TLS port, say) on another free port, whose
     * {@code redis-server} options {@code argsForPort} gives. Either port may be taken by another process
     * between probing and binding (test JVMs start servers side by side): both are picked again then.
     */
    public static WithSecondPort startWithSecondPort(IntFunction<List<String>> argsForPort) {
        int[] second = new int[1];
        RedisServer server = launched(() -> {
            second[0] = freePort();
            return new RedisServer(freePort(), argsForPort.apply(second[0]));
        });
        return new WithSecondPort(server, second[0]);
    }

    /**
     * Starts a Sentinel ({@code redis-server <config> --sentinel}) on a free port. The lines are
     * written to a config file in the server's own temp directory, which Sentinel rewrites as it
     * learns about replicas, other sentinels and failovers.
     */
    public static RedisServer startSentinel(List<String> configLines) {
        return launched(() -> new RedisServer(freePort(), List.of("--sentinel"), configLines));
    }

    /** Starts a server on the given port. */
    public static RedisServer startOnPort(int port, String... extraArgs) {
        RedisServer server = new RedisServer(port, List.of(extraArgs));
        server.launch();
        return server;
    }

    /** A free TCP port on the loopback interface. */
    public static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new InetSocketAddress("127.0.0.1", 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return port;
    }

    public String host() {
        return "127.0.0.1";
    }

    /** {@code redis://127.0.0.1:<port>}. */
    public String uri() {
        return "redis://" + host() + ":" + port;
    }

    /** The OS process id of the running server, or -1 when stopped. */
    public long pid() {
        Process p = process;
        return p != null && p.isAlive() ? p.pid() : -1;
    }

    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /** Kills the server (SIGKILL): no shutdown, no save, like a crash. */
    public void stop() {
        kill();
    }

    /** Starts the server again on the same port with the same options, after {@link #stop()}. */
    public void restart() {
        kill();
        launch();
    }

    /** Freezes the process with SIGSTOP: connections stay open but nothing is answered. */
    public void pause() {
        signal("STOP");
    }

    /** Resumes a paused process with SIGCONT. */
    public void resume() {
        signal("CONT");
    }

    /**
     * Sends one command with a tiny RESP client and returns the raw reply line(s); for test set-up
     * (FLUSHALL, SCRIPT FLUSH, CONFIG SET) without depending on a Redis client library.
     */
    public String command(String... args) {
        return Resp.command(host(), port, args);
    }

    /** The server's {@code redis_version} from INFO, such as {@code 7.0.15}. */
    public String version() {
        return query("INFO", "server").replaceAll("(?s).*redis_version:([0-9.]+).*", "$1");
    }

    /**
     * Sends one command and returns the whole reply as text: a bulk string in full, an array as its
     * elements one per line (nested arrays flattened), {@code +OK}, {@code :1} and {@code -ERR ...}
     * as written. For set-up and probes that read {@code INFO}, {@code CLUSTER INFO} or
     * {@code SENTINEL} replies.
     */
    public String query(String... args) {
        return Resp.query(host(), port, args);
    }

    /** The server's log so far (the last 2000 characters), for failure messages. */
    public String logTail() {
        return dir.log();
    }

    @Override
    public void close() {
        kill();
        RUNNING.remove(this);
        dir.delete();
    }

    private void launch() {
        List<String> cmd = dir.commandLine(port, configLines, extraArgs);
        try {
            process = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.stdout())
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("Cannot start " + cmd, e);
        }
        RUNNING.add(this);
        awaitReady();
    }

    private void awaitReady() {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("redis-server on port " + port + " exited at start: " + dir.log());
            }
            try {
                String reply = command("PING");
                if (reply.contains("PONG") || reply.startsWith("-NOAUTH")) { // NOAUTH: up, but password-protected
                    return;
                }
            } catch (UncheckedIOException notYet) {
                // not listening yet
            }
            sleep(20);
        }
        kill();
        throw new IllegalStateException(
                "redis-server on port " + port + " not ready within " + STARTUP_TIMEOUT + ": " + dir.log());
    }

    private void signal(String sig) {
        long pid = pid();
        if (pid < 0) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
        Signals.send(pid, sig);
    }

    private void kill() {
        Process p = process;
        if (p == null) {
            return;
        }
        if (p.isAlive()) {
            try {
                signal("CONT"); // a paused process cannot die before it runs again
            } catch (RuntimeException ignored) {
                // already gone
            }
        }
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        process = null;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "RedisServer[" + uri() + "]";
    }
}
