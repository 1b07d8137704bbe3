package dev.distlock.core.internal.redis;

import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * One client's subscriptions on its Lettuce pub/sub connection: messages and confirmations reach the
 * given callbacks on Lettuce's I/O thread, again after every reconnect (Lettuce subscribes anew).
 */
final class LettuceChannels implements RedisPort.Channels {

    private final RedisPubSubAsyncCommands<String, String> commands;

    LettuceChannels(
            StatefulRedisPubSubConnection<String, String> connection,
            BiConsumer<String, String> onMessage,
            Consumer<String> onSubscribed) {
        this.commands = connection.async();
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                onMessage.accept(channel, message);
            }

            @Override
            public void subscribed(String channel, long count) {
                onSubscribed.accept(channel);
            }
        });
    }

    @Override
    public CompletableFuture<Void> subscribe(String channel) {
        return commands.subscribe(channel).toCompletableFuture();
    }

    @Override
    public void unsubscribe(String channel) {
        commands.unsubscribe(channel);
    }
}
