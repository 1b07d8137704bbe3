package dev.distlock.sample;

import dev.distlock.testsupport.RedisBinary;
import dev.distlock.testsupport.RedisServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;
import java.time.Duration;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.support.DefaultSingletonBeanRegistry;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.context.logging.LoggingApplicationListener;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Starts a throw-away {@code redis-server} when nothing answers at
 * {@code spring.data.redis.host:port}, so the sample runs on a machine with only a JDK. A real
 * application does not do this: it is given a Redis to use.
 *
 * <p>It acts on {@link ApplicationEnvironmentPreparedEvent}: the properties are known and no bean,
 * so no Redis connection, exists yet. The server is a bean that is destroyed after every other
 * bean, so the lock client and Lettuce close before their Redis goes away. It uses the
 * {@code redis-server} on the PATH, else the one bundled in lock-test-support's dependencies.
 * {@code sample.fallback-redis.enabled=false} switches it off.
 */
final class FallbackRedis implements SmartApplicationListener {

    /** Bean name of the server, when one was started. */
    static final String BEAN_NAME = "fallbackRedisServer";

    private static final Log log = LogFactory.getLog(FallbackRedis.class);
    private static final Duration PROBE_TIMEOUT = Duration.ofMillis(500);

    private RedisServer server;

    @Override
    public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
        return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
                || ApplicationPreparedEvent.class.isAssignableFrom(eventType)
                || ApplicationFailedEvent.class.isAssignableFrom(eventType);
    }

    /** After Spring Boot's logging listener, so what this logs uses the application's logging set-up. */
    @Override
    public int getOrder() {
        return LoggingApplicationListener.DEFAULT_ORDER + 1;
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
            startIfNothingAnswers(prepared.getEnvironment());
        } else if (event instanceof ApplicationPreparedEvent prepared && server != null) {
            // Registered before refresh creates any bean, so it is destroyed last.
            if (prepared.getApplicationContext().getBeanFactory() instanceof DefaultSingletonBeanRegistry beans) {
                beans.registerSingleton(BEAN_NAME, server);
                beans.registerDisposableBean(BEAN_NAME, this::stop);
            }
        } else if (event instanceof ApplicationFailedEvent && server != null) {
            stop();
        }
    }

    private void startIfNothingAnswers(ConfigurableEnvironment env) {
        if (!env.getProperty("sample.fallback-redis.enabled", Boolean.class, true)) {
            return;
        }
        if (env.containsProperty("spring.data.redis.url")
                || env.containsProperty("spring.data.redis.sentinel.master")
                || env.containsProperty("spring.data.redis.cluster.nodes")) {
            return; // not a single host:port: leave it to the application
        }
        String host = env.getProperty("spring.data.redis.host", "localhost");
        int port = env.getProperty("spring.data.redis.port", Integer.class, 6379);
        if (answers(host, port)) {
            log.info("Using the Redis at " + host + ":" + port);
            return;
        }
        if (!isLoopback(host)) {
            log.warn("Nothing answers at " + host + ":" + port
                    + "; a local fallback Redis would not help a remote host, so none is started");
            return;
        }
        String binary = RedisBinary.isBundled()
                ? "the redis-server bundled with lock-test-support"
                : RedisBinary.path().toString();
        log.warn(
                "Nothing answers at " + host + ":" + port + ", so the sample starts a throw-away Redis there (" + binary
                        + ", no persistence), stopped when the application stops. Start your own Redis on that port to use it instead,"
                        + " or set sample.fallback-redis.enabled=false.");
        try {
            server = RedisServer.startOnPort(port);
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "No Redis answers at " + host + ":" + port + " and the fallback redis-server did not start: "
                            + e.getMessage()
                            + ". Start Redis on that port, or point spring.data.redis.host/port at one.",
                    e);
        }
        log.info("Fallback Redis ready at " + server.uri());
    }

    private void stop() {
        RedisServer s = server;
        server = null;
        if (s != null) {
            s.close();
            log.info("Fallback Redis at " + s.uri() + " stopped");
        }
    }

    private static boolean answers(String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), (int) PROBE_TIMEOUT.toMillis());
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean isLoopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
