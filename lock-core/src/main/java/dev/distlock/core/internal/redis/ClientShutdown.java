package dev.distlock.core.internal.redis;

import io.lettuce.core.AbstractRedisClient;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shuts down a Lettuce client within a bound. Lettuce's own {@code shutdown()} waits without one, and has been
 * seen never to return (Lettuce issue 2278): in this project's tests both after SIGKILLed nodes, with a
 * connection still reconnecting, and once on a loaded host with no fault at all, each time for the five
 * minutes until the test's timeout. Closing the locks must not hang an application's shutdown for that, and
 * the tests shut their own Lettuce clients down through this too.
 */
public final class ClientShutdown {

    /** How long a shutdown waits for the client's connections and threads before it leaves them behind. */
    static final Duration BOUND = Duration.ofSeconds(10);

    private static final Logger log = LoggerFactory.getLogger(ClientShutdown.class);

    private ClientShutdown() {}

    /** Shuts {@code client} down, waiting at most {@link #BOUND}; says so when it had to leave it behind. */
    public static void shutdown(AbstractRedisClient client) {
        try {
            client.shutdownAsync(0, 2, TimeUnit.SECONDS).get(BOUND.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            log.warn(
                    "distlock: the Redis client did not shut down within {} s (a connection still reconnecting to"
                            + " a Redis that is gone); its threads are left to end in the background",
                    BOUND.toSeconds());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            log.warn(
                    "distlock: shutting the Redis client down failed: {}",
                    e.getCause().toString());
        }
    }
}
