package dev.distlock.core.internal.memory;

import io.lettuce.core.RedisException;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pub/sub client of a {@link MemoryRedis}, as one pub/sub connection to Redis: it subscribes to
 * channels and gets the messages published on them, on the store's thread, in the order published.
 * Internal: not part of the public API.
 */
public final class Subscriber {

    private static final Logger log = LoggerFactory.getLogger(Subscriber.class);

    private final MemoryRedis redis;
    private final BiConsumer<String, String> onMessage;
    private final Consumer<String> onSubscribed;
    /** Channels subscribed; only the store's thread touches it. */
    private final Set<String> channels = new LinkedHashSet<>();

    Subscriber(MemoryRedis redis, BiConsumer<String, String> onMessage, Consumer<String> onSubscribed) {
        this.redis = redis;
        this.onMessage = onMessage;
        this.onSubscribed = onSubscribed;
    }

    /**
     * Subscribes to {@code channel}; completes (and calls onSubscribed) once subscribed, so that every
     * message published afterwards reaches this subscriber.
     */
    public CompletableFuture<Void> subscribe(String channel) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        boolean queued = redis.runOnThread(() -> {
            channels.add(channel);
            redis.subscribe(this, channel);
            callBack(() -> onSubscribed.accept(channel));
            done.complete(null);
        });
        if (!queued) {
            done.completeExceptionally(new RedisException("MemoryRedis is closed"));
        }
        return done;
    }

    /** Unsubscribes from {@code channel}: no message published after this call reaches this subscriber. */
    public void unsubscribe(String channel) {
        redis.runOnThread(() -> {
            channels.remove(channel);
            redis.unsubscribe(this, channel);
        });
    }

    /** Unsubscribes from every channel. */
    public void close() {
        redis.runOnThread(() -> {
            for (String channel : channels) {
                redis.unsubscribe(this, channel);
            }
            channels.clear();
        });
    }

    void deliver(String channel, String message) {
        callBack(() -> onMessage.accept(channel, message));
    }

    /** A listener that throws must not stop the store's thread or the other listeners. */
    private static void callBack(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            log.warn("A pub/sub listener of MemoryRedis threw", e);
        }
    }
}
