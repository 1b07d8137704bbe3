package dev.distlock.core;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.internal.redis.script.ScriptRunner;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A plain Lettuce connection next to the client under test, to look at and poke the real Redis
 * directly (TTLs, hash fields, DEL, SCRIPT FLUSH, pub/sub) without going through lock-core.
 */
final class RedisProbe implements AutoCloseable {

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private StatefulRedisPubSubConnection<String, String> pubSub;

    private RedisProbe(RedisClient client) {
        this.client = client;
        this.connection = client.connect(StringCodec.UTF8);
    }

    static RedisProbe connect(RedisServer server) {
        return new RedisProbe(RedisClient.create(server.uri()));
    }

    RedisCommands<String, String> sync() {
        return connection.sync();
    }

    RedisAsyncCommands<String, String> async() {
        return connection.async();
    }

    /**
     * Scripts Redis has run (EVALSHA and EVAL, from INFO commandstats). An EVALSHA refused as NOSCRIPT
     * (the first use of a script on a server) ran nothing and does not count.
     */
    long scriptRuns() {
        return commandRuns("evalsha") + commandRuns("eval");
    }

    /** How many times Redis ran {@code command} (lower case, from INFO commandstats), refused calls not counted. */
    long commandRuns(String command) {
        for (String line : sync().info("commandstats").split("\\r?\\n")) {
            if (line.startsWith("cmdstat_" + command + ":")) {
                return field(line, "calls=") - field(line, "failed_calls=");
            }
        }
        return 0;
    }

    /** How many replies Redis has given with error {@code code} (such as READONLY), from INFO errorstats. */
    long errorReplies(String code) {
        for (String line : sync().info("errorstats").split("\\r?\\n")) {
            if (line.startsWith("errorstat_" + code + ":")) {
                return field(line, "count=");
            }
        }
        return 0;
    }

    private static long field(String line, String name) {
        int at = line.indexOf(',' + name);
        int start = at >= 0 ? at + 1 + name.length() : line.indexOf(name) + name.length();
        int end = line.indexOf(',', start);
        return Long.parseLong(end < 0 ? line.substring(start) : line.substring(start, end));
    }

    /** A script runner on this connection, as lock-core builds it. */
    ScriptRunner scripts() {
        return new ScriptRunner(connection.async());
    }

    /**
     * Subscribes to {@code channel} and returns once Redis confirmed it; every message published
     * on it afterwards lands in the returned queue.
     */
    BlockingQueue<String> subscribe(String channel) {
        if (pubSub == null) {
            pubSub = client.connectPubSub(StringCodec.UTF8);
        }
        BlockingQueue<String> messages = new LinkedBlockingQueue<>();
        pubSub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String ch, String message) {
                if (ch.equals(channel)) {
                    messages.add(message);
                }
            }
        });
        pubSub.sync().subscribe(channel);
        return messages;
    }

    @Override
    public void close() {
        if (pubSub != null) {
            pubSub.close();
        }
        connection.close();
        ClientShutdown.shutdown(client);
    }
}
