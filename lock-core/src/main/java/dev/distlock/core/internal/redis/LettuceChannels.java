package dev.distlock.core.internal.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client's subscriptions on its Lettuce pub/sub connection: messages and confirmations reach the
 * given callbacks on Lettuce's I/O thread, again after every reconnect (Lettuce subscribes anew). With
 * sharded pub/sub (Redis Cluster on Redis 7), channels are subscribed with SSUBSCRIBE, which Lettuce's
 * cluster pub/sub connection sends to the master that owns the channel's slot, as the scripts' SPUBLISH
 * reaches only that shard. When that master gives the slot up (resharding, failover), it ends the
 * subscription itself; this subscribes again, on the slot's new owner, and the confirmation wakes the
 * channel's waiters to look again, as after a reconnect.
 */
final class LettuceChannels implements RedisPort.Channels {

    private static final Logger log = LoggerFactory.getLogger(LettuceChannels.class);

    private final RedisPubSubAsyncCommands<String, String> commands;
    private final boolean sharded;
    /** Sharded channels this client wants, to tell a subscription the server ended from one this client ended. */
    private final Set<String> wanted = ConcurrentHashMap.newKeySet();

    LettuceChannels(
            StatefulRedisPubSubConnection<String, String> connection,
            boolean sharded,
            BiConsumer<String, String> onMessage,
            Consumer<String> onSubscribed) {
        this.commands = connection.async();
        this.sharded = sharded;
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                onMessage.accept(channel, message);
            }

            @Override
            public void smessage(String channel, String message) {
                onMessage.accept(channel, message);
            }

            @Override
            public void subscribed(String channel, long count) {
                onSubscribed.accept(channel);
            }

            @Override
            public void ssubscribed(String channel, long count) {
                onSubscribed.accept(channel);
            }

            @Override
            public void sunsubscribed(String channel, long count) {
                if (wanted.contains(channel)) { // the server ended it: its slot moved to another master
                    commands.ssubscribe(channel).whenComplete((ok, error) -> {
                        if (error != null) {
                            log.warn(
                                    "Cannot subscribe again to {} after its slot moved; its waiters look again when"
                                            + " the holder's lease ends: {}",
                                    channel,
                                    error.toString());
                        }
                    });
                }
            }
        });
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        if (!sharded) {
            return commands.subscribe(channel).toCompletableFuture();
        }
        wanted.add(channel);
        return commands.ssubscribe(channel).toCompletableFuture();
    }

    @Override
    public void unsubscribe(String channel) {
        if (sharded) {
            wanted.remove(channel);
            commands.sunsubscribe(channel);
        } else {
            commands.unsubscribe(channel);
        }
    }
}
