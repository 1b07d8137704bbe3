package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanIterator;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A name is data, never syntax: whatever it contains, every key and channel stays literally under
 * {@code <prefix>{name}}, and scripts receive it only through KEYS/ARGV, so Lua or quote characters
 * in it run nothing.
 */
class LockNameConfinementTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static RedisClient admin;
    private static StatefulRedisConnection<String, String> connection;
    private static RedisCommands<String, String> commands;
    private static LockClient client;

    @BeforeAll
    static void connect() {
        admin = RedisClient.create(RedisURI.create(redis.server().uri()));
        connection = admin.connect();
        commands = connection.sync();
        client = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder().keyPrefix("app:lock:").build());
    }

    @AfterAll
    static void close() {
        client.close();
        connection.close();
        ClientShutdown.shutdown(admin);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "../x",
                "{}",
                "a}{b",
                "*",
                "{",
                "a}",
                "a b",
                "lock:other",
                "'); redis.call('FLUSHALL') --",
                "\"]] redis.call(\"FLUSHALL\") --[[",
                "KEYS[1]",
                "%s%n",
                "ключ-🔒"
            })
    void everyKeyStaysInsideThePrefixAndScriptsTreatTheNameAsData(String name) {
        commands.flushall();
        commands.set("canary", "alive");
        List<Function<String, RedisLock>> kinds = List.of(
                client::getLock,
                client::getFairLock,
                n -> client.getReadWriteLock(n).readLock(),
                n -> client.getReadWriteLock(n).writeLock(),
                n -> client.getMultiLock(n, n + "-2"));
        List<String> seen = new ArrayList<>();
        for (Function<String, RedisLock> kind : kinds) {
            RedisLock lock = kind.apply(name);
            assertThat(tryOnce(lock)).as("lock %s", name).isTrue();
            try {
                seen.addAll(keys());
            } finally {
                lock.unlock();
            }
        }
        seen.addAll(keys());
        assertThat(commands.get("canary")).as("nothing flushed or overwritten").isEqualTo("alive");
        assertThat(seen)
                .contains("app:lock:{" + name + "}")
                .allSatisfy(key -> assertThat(key.equals("canary")
                                || key.startsWith("app:lock:{" + name + "}")
                                || key.startsWith("app:lock:{" + name + "-2}"))
                        .as("key %s is inside app:lock:{%s}", key, name)
                        .isTrue());
    }

    private static List<String> keys() {
        List<String> keys = new ArrayList<>();
        ScanIterator.scan(commands, ScanArgs.Builder.matches("*")).forEachRemaining(keys::add);
        return keys;
    }
}
