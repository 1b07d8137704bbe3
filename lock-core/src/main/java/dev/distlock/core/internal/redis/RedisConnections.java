package dev.distlock.core.internal.redis;

import dev.distlock.core.PubSubMode;
import dev.distlock.core.internal.redis.script.ScriptCalls;
import dev.distlock.core.internal.redis.script.ScriptRunner;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisKeyAsyncCommands;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ReconnectFailedEvent;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.net.SocketAddress;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;

/**
 * The three connections a client uses: one for commands (shared by all threads), one for watchdog
 * renewals, one for pub/sub. Renewals have their own so that a round renewing thousands of leases
 * never queues in front of a lock call: Redis serves its clients in turn, so a lock call waits
 * behind one batch of renewals at most, not behind the whole round.
 */
public final class RedisConnections implements RedisPort {

    /**
     * The least time one acquire step gets on a Redis server even when the caller's wait has (almost) run
     * out, so that {@code tryLock(0)} still makes its one round trip: {@code tryLock(wait)} returns within
     * its wait plus at most this much when Redis does not answer.
     */
    public static final long MIN_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

    private final ScriptRunner scripts;
    /** Watchdog renewals only (the renew scripts are safe in any order with the other commands). */
    private final ScriptRunner renewals;

    private final RedisKeyAsyncCommands<String, String> keys;
    /**
     * For WAIT and INFO; {@code null} on Redis Cluster, where WAIT would not reach the node that holds a given
     * key and no one process is the server.
     */
    private final @Nullable RedisAsyncCommands<String, String> base;

    private final StatefulRedisPubSubConnection<String, String> pubSub;
    /** Wake-ups through Redis 7's sharded pub/sub (see {@link ShardedPubSub}). */
    private final boolean sharded;

    private final StatefulConnection<String, String> commands;
    private final StatefulConnection<String, String> renewing;
    private final AbstractRedisClient client;
    private final boolean owned;

    RedisConnections(
            StatefulConnection<String, String> commands,
            StatefulConnection<String, String> renewing,
            RedisClusterAsyncCommands<String, String> renewals,
            RedisClusterAsyncCommands<String, String> scripting,
            RedisKeyAsyncCommands<String, String> keys,
            @Nullable RedisAsyncCommands<String, String> base,
            StatefulRedisPubSubConnection<String, String> pubSub,
            boolean sharded,
            AbstractRedisClient client,
            boolean owned) {
        this.base = base;
        this.sharded = sharded;
        this.commands = commands;
        this.renewing = renewing;
        this.renewals = new ScriptRunner(renewals, ExactUtf8Codec.INSTANCE, sharded);
        this.scripts = new ScriptRunner(scripting, ExactUtf8Codec.INSTANCE, sharded);
        this.keys = keys;
        this.pubSub = pubSub;
        this.client = client;
        this.owned = owned;
    }

    @Override
    public long minStepNanos() {
        return MIN_STEP_NANOS;
    }

    @Override
    public ScriptCalls scripts() {
        return scripts;
    }

    @Override
    public ScriptCalls renewals() {
        return renewals;
    }

    @Override
    public Channels channels(BiConsumer<String, String> onMessage, Consumer<String> onSubscribed) {
        return new LettuceChannels(pubSub, sharded, onMessage, onSubscribed);
    }

    @Override
    public CompletableFuture<Long> pttl(String key) {
        return keys.pttl(key).toCompletableFuture();
    }

    @Override
    public CompletableFuture<Long> exists(String key) {
        return keys.exists(key).toCompletableFuture();
    }

    @Override
    public CompletableFuture<@Nullable String> serverRunId() {
        if (base == null) {
            return CompletableFuture.completedFuture(null);
        }
        // the run_id line of INFO server
        return base.info("server")
                .toCompletableFuture()
                .thenApply(info -> info.lines()
                        .filter(line -> line.startsWith("run_id:"))
                        .map(line -> line.substring("run_id:".length()).trim())
                        .findFirst()
                        .orElse(null));
    }

    @Override
    public boolean acknowledgesReplicas() {
        return base != null;
    }

    @Override
    public CompletableFuture<Long> waitForReplicas(int replicas, long timeoutMs) {
        return Objects.requireNonNull(base, "WAIT needs a standalone or Sentinel Redis")
                .waitForReplication(replicas, timeoutMs)
                .toCompletableFuture();
    }

    @Override
    public Runnable checkEvictionPolicy(long timeoutNanos) {
        return EvictionPolicyCheck.start(this, timeoutNanos)::close;
    }

    /**
     * Runs {@code action} (on a Lettuce I/O thread: it must not block) each time the command connection
     * connects again after a disconnect; the returned action stops that. Only this client's own command
     * connection counts, not other connections of a Lettuce client the application shares with it.
     */
    public Runnable onReconnected(Runnable action) {
        RedisConnectionStateListener listener = new RedisConnectionStateListener() {
            @Override
            public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress address) {
                if (connection == commands) {
                    action.run();
                }
            }
        };
        client.addListener(listener);
        return () -> client.removeListener(listener);
    }

    /** {@code CONFIG GET parameter}, sent without waiting: of the server, or of every master of a Cluster. */
    public List<CompletableFuture<Map<String, String>>> configGet(String parameter) {
        if (commands instanceof StatefulRedisClusterConnection<String, String> cluster) {
            return List.of(
                    cluster.async().masters().commands().configGet(parameter).futures());
        }
        return List.of(Objects.requireNonNull(base).configGet(parameter).toCompletableFuture());
    }

    /**
     * Opens the connections of a standalone/Sentinel {@link RedisClient} or a {@link RedisClusterClient}.
     *
     * @param owned whether closing this also shuts the client down
     * @param mode how wake-ups travel (see {@link ShardedPubSub})
     * @throws IllegalArgumentException when {@code mode} is {@link PubSubMode#SHARDED} and Redis is older than 7.0
     */
    public static RedisConnections open(AbstractRedisClient client, boolean owned, PubSubMode mode) {
        return Connecting.open(client, owned, mode);
    }

    /**
     * Tells {@code failed} why each reconnect of the client's connections failed ("Connection refused"), and
     * {@code restored} when one is connected again: while Lettuce reconnects, commands wait in its buffer and
     * time out with no error of their own, so this is where the cause of an outage is seen. Running the
     * returned handle stops it.
     */
    @Override
    public Runnable onConnectionEvents(Consumer<Throwable> failed, Runnable restored) {
        Disposable subscription = commands.getResources().eventBus().get().subscribe(event -> {
            if (event instanceof ReconnectFailedEvent failure) {
                failed.accept(failure.getCause());
            } else if (event instanceof ConnectionActivatedEvent) {
                restored.run();
            }
        });
        return subscription::dispose;
    }

    @Override
    public void close() {
        pubSub.close();
        renewing.close();
        commands.close();
        if (owned) {
            ClientShutdown.shutdown(client);
        }
    }
}
