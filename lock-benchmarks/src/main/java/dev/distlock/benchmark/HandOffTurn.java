package dev.distlock.benchmark;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.redis.ClientShutdown;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * What {@link HandOffPingPong}'s two sides pass back and forth: a distlock lock of one kind, or, for the
 * floor, no lock at all. The floor is the physical limit of a hand-off through Redis that the issue names:
 * the releaser's one command reaches Redis and Redis tells the parked waiter. Its giver sends a bare PUBLISH
 * to the other side's channel with Lettuce, and its taker parks until its own subscription's listener (on
 * Lettuce's event loop, as distlock's wake-ups) lets it go. A lock's hand-off can only be slower.
 */
interface HandOffTurn extends AutoCloseable {

    /** The kind that names the floor on the command line and in the child-JVM protocol. */
    String FLOOR = "floor";

    /** Blocks until this side has the turn. */
    void take();

    /** Gives the turn to the other side. */
    void give();

    @Override
    void close();

    /**
     * The turn {@code kind} names: {@code fair} or {@code reentrant} (a distlock lock of {@code client} named
     * {@code name}), or {@link #FLOOR} (bare pub/sub on {@code uri}; side 0 has the first turn).
     */
    static HandOffTurn of(LockClient client, String uri, String kind, String name, int side) {
        if (kind.equals(FLOOR)) {
            return new PubSubFloor(uri, name, side);
        }
        RedisLock lock = kind.equals("fair") ? client.getFairLock(name) : client.getLock(name);
        return new HandOffTurn() {
            @Override
            public void take() {
                lock.lock();
            }

            @Override
            public void give() {
                lock.unlock();
            }

            @Override
            public void close() {}
        };
    }

    /** The floor: a PUBLISH to the other side's channel wakes it; nothing is held. */
    final class PubSubFloor implements HandOffTurn {

        private final RedisClient client;
        private final StatefulRedisConnection<String, String> commands;
        private final StatefulRedisPubSubConnection<String, String> messages;
        private final Semaphore turn;
        private final String theirs;

        PubSubFloor(String uri, String name, int side) {
            this.client = RedisClient.create(uri);
            this.turn = new Semaphore(side == 0 ? 1 : 0);
            this.theirs = name + ":" + (1 - side);
            this.commands = client.connect();
            this.messages = client.connectPubSub();
            messages.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    turn.release();
                }
            });
            messages.sync().subscribe(name + ":" + side); // confirmed before the first turn is given
        }

        @Override
        public void take() {
            turn.acquireUninterruptibly();
        }

        @Override
        public void give() {
            // bounded, as every other wait of the ping-pong: a Redis that stops answering ends the run
            commands.async()
                    .publish(theirs, "turn")
                    .toCompletableFuture()
                    .orTimeout(30, TimeUnit.SECONDS)
                    .join();
        }

        @Override
        public void close() {
            ClientShutdown.shutdown(client);
        }
    }
}
