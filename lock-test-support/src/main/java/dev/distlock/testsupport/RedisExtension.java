package dev.distlock.testsupport;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that starts one real Redis server before the test class and stops every server
 * it started after it.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final RedisExtension redis = new RedisExtension();
 * ... redis.server().uri() ...
 * }</pre>
 */
public final class RedisExtension implements BeforeAllCallback, AfterAllCallback {

    private final List<RedisServer> started = new CopyOnWriteArrayList<>();
    private volatile RedisServer primary;

    @Override
    public void beforeAll(ExtensionContext context) {
        primary = startAnother();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        started.forEach(RedisServer::close);
        started.clear();
        primary = null;
    }

    /** The server started for this test class. */
    public RedisServer server() {
        if (primary == null) {
            throw new IllegalStateException("RedisExtension must be registered as a static @RegisterExtension field");
        }
        return primary;
    }

    /**
     * Starts one more server with a second listener ({@link RedisServer#startWithSecondPort}), stopped with
     * the others after the class.
     */
    public RedisServer.WithSecondPort startAnotherWithSecondPort(IntFunction<List<String>> argsForPort) {
        RedisServer.WithSecondPort started = RedisServer.startWithSecondPort(argsForPort);
        this.started.add(started.server());
        return started;
    }

    /** Starts one more independent server, stopped with the others after the class. */
    public RedisServer startAnother(String... extraArgs) {
        RedisServer server = RedisServer.start(extraArgs);
        started.add(server);
        return server;
    }
}
