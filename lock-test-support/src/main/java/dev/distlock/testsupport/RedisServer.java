package dev.distlock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import java.util.stream.Stream;

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
    private final Path dir;
    private final List<String> configLines;
    private volatile Process process;

    private RedisServer(int port, List<String> extraArgs) {
        this(port, extraArgs, null);
    }

    private RedisServer(int port, List<String> extraArgs, List<String> configLines) {
        this.port = port;
        this.extraArgs = List.copyOf(extraArgs);
        this.configLines = configLines == null ? null : List.copyOf(configLines);
        try {
            this.dir = Files.createTempDirectory("distlock-redis-" + port + "-");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Starts a server on a free port; extra arguments are passed as {@code redis-server} options. */
    public static RedisServer start(String... extraArgs) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            RedisServer server = new RedisServer(freePort(), List.of(extraArgs));
            try {
                server.launch();
                return server;
            } catch (IllegalStateException e) {
                // the port may have been taken between probing and binding: try another one
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
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int second = freePort();
            RedisServer server = new RedisServer(freePort(), argsForPort.apply(second));
            try {
                server.launch();
                return new WithSecondPort(server, second);
            } catch (IllegalStateException e) {
                last = e;
                server.close();
            }
        }
        throw last;
    }

    /**
     * Starts a Sentinel ({@code redis-server <config> --sentinel}) on a free port. The lines are
     * written to a config file in the server's own temp directory, which Sentinel rewrites as it
     * learns about replicas, other sentinels and failovers.
     */
    public static RedisServer startSentinel(List<String> configLines) {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            RedisServer server = new RedisServer(freePort(), List.of("--sentinel"), configLines);
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
        try (Socket socket = new Socket(host(), port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            StringBuilder req = new StringBuilder("*").append(args.length).append("\r\n");
            for (String a : args) {
                byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
                req.append('$').append(bytes.length).append("\r\n").append(a).append("\r\n");
            }
            out.write(req.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return readLine(socket.getInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException("Redis on port " + port + " did not answer " + String.join(" ", args), e);
        }
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
        try (Socket socket = new Socket(host(), port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(encode(args));
            out.flush();
            StringBuilder sb = new StringBuilder();
            readReply(new java.io.BufferedInputStream(socket.getInputStream()), sb);
            return sb.toString();
        } catch (IOException e) {
            throw new UncheckedIOException("Redis on port " + port + " did not answer " + String.join(" ", args), e);
        }
    }

    private static byte[] encode(String... args) {
        java.io.ByteArrayOutputStream req = new java.io.ByteArrayOutputStream();
        req.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String a : args) {
            byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
            req.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            req.writeBytes(bytes);
            req.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        return req.toByteArray();
    }

    private static void readReply(InputStream in, StringBuilder sb) throws IOException {
        String line = readRawLine(in);
        if (line.isEmpty()) {
            throw new IOException("empty reply");
        }
        switch (line.charAt(0)) {
            case '$' -> {
                int len = Integer.parseInt(line.substring(1));
                if (len < 0) {
                    sb.append("(nil)");
                    return;
                }
                byte[] data = in.readNBytes(len + 2);
                sb.append(new String(data, 0, len, StandardCharsets.UTF_8));
            }
            case '*' -> {
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        sb.append('\n');
                    }
                    readReply(in, sb);
                }
            }
            default -> sb.append(line);
        }
    }

    private static String readRawLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\r') {
                in.read();
                break;
            }
            sb.append((char) c);
        }
        return sb.toString();
    }

    /** The server's log so far (the last 2000 characters), for failure messages. */
    public String logTail() {
        return log();
    }

    @Override
    public void close() {
        kill();
        RUNNING.remove(this);
        deleteDir();
    }

    private void launch() {
        List<String> cmd = new ArrayList<>();
        cmd.add(RedisBinary.path().toString());
        if (configLines != null) {
            // redis-server wants the config file as its first argument; written once, then Sentinel owns it
            Path conf = dir.resolve("sentinel.conf");
            try {
                if (!Files.exists(conf)) {
                    Files.write(conf, configLines);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            cmd.add(conf.toString());
        }
        cmd.addAll(List.of(
                "--port",
                String.valueOf(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--daemonize",
                "no",
                "--protected-mode",
                "no",
                "--dir",
                dir.toString(),
                "--logfile",
                dir.resolve("redis.log").toString()));
        cmd.addAll(extraArgs);
        try {
            process = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("stdout.log").toFile())
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
                throw new IllegalStateException("redis-server on port " + port + " exited at start: " + log());
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
                "redis-server on port " + port + " not ready within " + STARTUP_TIMEOUT + ": " + log());
    }

    private String log() {
        try {
            Path log = dir.resolve("redis.log");
            Path out = dir.resolve("stdout.log");
            String text =
                    (Files.exists(log) ? Files.readString(log) : "") + (Files.exists(out) ? Files.readString(out) : "");
            return text.length() > 2000 ? text.substring(text.length() - 2000) : text;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private void signal(String sig) {
        long pid = pid();
        if (pid < 0) {
            throw new IllegalStateException("redis-server on port " + port + " is not running");
        }
        try {
            Process kill = new ProcessBuilder("kill", "-" + sig, String.valueOf(pid))
                    .inheritIO()
                    .start();
            if (!kill.waitFor(5, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + sig + " " + pid + " failed");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
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

    private void deleteDir() {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // temp dir; best effort
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\r') {
                in.read();
                break;
            }
            sb.append((char) c);
        }
        if (sb.length() > 0 && sb.charAt(0) == '$' && !sb.toString().equals("$-1")) {
            sb.setLength(0);
            return readLine(in);
        }
        return sb.toString();
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
