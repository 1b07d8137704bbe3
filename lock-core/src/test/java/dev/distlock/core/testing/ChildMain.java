package dev.distlock.core.testing;

import dev.distlock.core.LockClient;
import dev.distlock.core.internal.redis.ClientShutdown;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * What the child-JVM workers share with the tests that start them: the start handshake (the child prints
 * {@code READY} once set up and waits for {@code GO} on stdin, so that every child starts its work
 * together), and for the simple ones the whole run: a {@link LockClient} and a plain connection to one
 * Redis, the work's last line printed and exit 0, or {@code FAILED <error>} with its stack trace and exit 1.
 */
public final class ChildMain {

    /** A child's work: what it prints when it succeeds ({@code DONE}, {@code INCREMENTS <n>}). */
    @FunctionalInterface
    public interface Work {
        String run(LockClient client, RedisCommands<String, String> redis) throws Throwable;
    }

    private ChildMain() {}

    /** Prints {@code READY} and waits for the test's {@code GO} on {@code stdin}. */
    public static void readyThenGo(BufferedReader stdin) throws IOException {
        System.out.println("READY");
        System.out.flush();
        String go = stdin.readLine();
        if (!"GO".equals(go)) {
            throw new IllegalStateException("expected GO on stdin, got " + go);
        }
    }

    /** {@link #readyThenGo(BufferedReader)} on this process's standard input. */
    public static void readyThenGo() throws IOException {
        readyThenGo(new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)));
    }

    /** Runs {@code work} on a client and a connection to {@code uri}, reports as the class says, and exits. */
    public static void run(String uri, Work work) {
        int exitCode;
        RedisClient redis = RedisClient.create(uri);
        try (LockClient client = LockClient.create(RedisURI.create(uri));
                StatefulRedisConnection<String, String> connection = redis.connect()) {
            System.out.println(work.run(client, connection.sync()));
            exitCode = 0;
        } catch (Throwable e) {
            System.out.println("FAILED " + e);
            e.printStackTrace(System.out);
            exitCode = 1;
        } finally {
            ClientShutdown.shutdown(redis);
        }
        System.out.flush();
        System.exit(exitCode);
    }
}
