package dev.distlock.core.internal.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.internal.redis.script.LockScript;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * MemoryRedis on its own, with a clock the test moves: expiry, pub/sub order, errors as Redis words
 * them, a closed store, many callers at once. (The lock scripts against real Redis: the *ScriptTest
 * classes, whose every call also runs here, see ScriptTestSupport.)
 */
@Timeout(60)
class MemoryRedisTest {

    private static final LockScript COMMAND = LockScript.load("memory-command.lua");
    private static final LockScript PUBLISH = LockScript.load("memory-publish.lua");
    private static final LockScript CASES = LockScript.load("memory-cases.lua");
    private static final long START_MICROS = 1_764_000_000_000_000L;

    private final AtomicLong clock = new AtomicLong(START_MICROS);
    private final MemoryRedis redis = new MemoryRedis(clock::get);

    @AfterEach
    void close() {
        redis.close();
    }

    private Object command(String... words) throws Exception {
        return redis.array(COMMAND, new String[0], words).get(5, TimeUnit.SECONDS);
    }

    private void advanceMillis(long ms) {
        clock.addAndGet(ms * 1_000);
    }

    @Test
    void aKeyIsGoneOnceItsTimeHasPassed() throws Exception {
        command("SET", "k", "v", "PX", "100");
        assertThat(redis.pttl("k").get()).isEqualTo(100L);
        advanceMillis(99);
        assertThat(redis.exists("k").get()).isEqualTo(1L);
        assertThat(redis.pttl("k").get()).isEqualTo(1L);
        advanceMillis(1);
        assertThat(redis.exists("k").get()).isZero();
        assertThat(redis.pttl("k").get()).isEqualTo(-2L);
        command("HSET", "h", "f", "v");
        assertThat(redis.pttl("h").get()).isEqualTo(-1L);
        assertThat(command("PEXPIRE", "h", "1000", "GT"))
                .as("no TTL counts as infinite")
                .isEqualTo(List.of(0L));
        assertThat(command("PEXPIRE", "h", "1000", "LT")).isEqualTo(List.of(1L));
        assertThat(command("PEXPIRE", "h", "500", "XX", "GT")).isEqualTo(List.of(0L));
        assertThat(redis.pttl("h").get()).isEqualTo(1000L);
        command("PEXPIRE", "h", "0"); // a time already past deletes the key
        assertThat(redis.exists("h").get()).isZero();
    }

    @Test
    void expiredKeysNobodyLooksUpAgainAreSweptAway() throws Exception {
        for (int i = 0; i < 100; i++) {
            command("SET", "k" + i, "v", "PX", "10");
        }
        advanceMillis(10);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (redis.keyCount() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertThat(redis.keyCount()).isZero();
    }

    @Test
    void timeAnswersTheClockAndEmptiedCollectionsAreDeleted() throws Exception {
        assertThat(command("TIME")).isEqualTo(List.of("1764000000", "0"));
        command("RPUSH", "q", "a");
        command("ZADD", "z", "1.5", "a");
        assertThat(command("ZSCORE", "z", "a")).isEqualTo(List.of("1.5"));
        command("LPOP", "q");
        command("ZREM", "z", "a");
        assertThat(redis.exists("q").get()).isZero();
        assertThat(redis.exists("z").get()).isZero();
    }

    @Test
    void subscribersGetAScriptsMessagesOnTheStoresThreadAfterItsReplyInPublishOrder() throws Exception {
        BlockingQueue<String> seen = new LinkedBlockingQueue<>();
        CompletableFuture<String> replied = new CompletableFuture<>();
        Subscriber subscriber = redis.subscriber(
                (channel, message) -> seen.add(Thread.currentThread().getName() + " " + channel + " " + message),
                channel -> {
                    // on the store's thread: the script cannot run before this callback returns
                    seen.add("subscribed " + channel);
                    redis.integer(PUBLISH, new String[0], "ch", "1", "2", "3").whenComplete((reply, error) -> {
                        seen.add("reply " + reply);
                        replied.complete(Thread.currentThread().getName());
                    });
                });
        subscriber.subscribe("ch").get(5, TimeUnit.SECONDS);
        assertThat(replied.get(5, TimeUnit.SECONDS)).isEqualTo(MemoryRedis.THREAD);
        assertThat(seen.poll()).isEqualTo("subscribed ch");
        List<String> order = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            order.add(seen.poll(5, TimeUnit.SECONDS));
        }
        String from = MemoryRedis.THREAD + " ch ";
        assertThat(order).containsExactly("reply 3", from + "1", from + "2", from + "3");
        subscriber.unsubscribe("ch");
        redis.integer(PUBLISH, new String[0], "ch", "4").get(5, TimeUnit.SECONDS);
        assertThat(command("PUBLISH", "ch", "5")).isEqualTo(List.of(0L));
        assertThat(seen).isEmpty();
    }

    @Test
    void repliesConvertAsRedisConvertsThem() throws Exception {
        assertThat(redis.array(CASES, new String[] {"k"}, "reply").get()).containsExactly(1L, "a", null, 3L, -3L, 1L);
        assertThat(redis.array(CASES, new String[] {"k"}, "status").get()).containsExactly("OK");
        assertThat(redis.array(CASES, new String[] {"n", "h"}, "numbers").get())
                .containsExactly("1764000000123456", "1e+15", "0.33333333333333", "12", "1.5");
        assertThat(redis.dump("h").get("h").value())
                .isEqualTo(Map.of("big", "1e+20", "token", "1764000000123456", "third", "0.33333333333333331"));
    }

    @Test
    void errorsAreRedisErrors() throws Exception {
        command("HSET", "h", "f", "v");
        assertThatThrownBy(() ->
                        redis.array(CASES, new String[] {"h"}, "wrongtype").get())
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageStartingWith(
                        "WRONGTYPE Operation against a key holding the wrong kind of value script: " + CASES.sha1());
        assertThat(redis.array(CASES, new String[] {"h"}, "pcall").get())
                .containsExactly("table", "WRONGTYPE Operation against a key holding the wrong kind of value");
        assertThatThrownBy(() -> redis.array(CASES, new String[0], "runtime").get())
                .cause()
                .hasMessageStartingWith("ERR user_script:")
                .hasMessageContaining("arithmetic");
        assertThatThrownBy(() -> redis.array(CASES, new String[0], "global").get())
                .cause()
                .hasMessageContaining("Script attempted to access nonexistent global variable 'undefinedName'");
        assertThatThrownBy(
                        () -> redis.array(CASES, new String[0], "error_reply").get())
                .cause()
                .hasMessage("MINE custom");
        assertThatThrownBy(() -> redis.array(CASES, new String[0], "unknown").get())
                .cause()
                .hasMessageStartingWith("ERR Unknown Redis command called from script")
                .hasMessageContaining("NOSUCHCOMMAND");
        assertThatThrownBy(() -> command("GET"))
                .cause()
                .hasMessageStartingWith("ERR Wrong number of args calling Redis command from script script: ");
        assertThatThrownBy(() -> command("SET", "s", "v", "PX", "0"))
                .cause()
                .hasMessageStartingWith("ERR invalid expire time in 'set' command");
        assertThat(command("HGET", "h", "f")).as("the store goes on").isEqualTo(List.of("v"));
    }

    @Test
    void aClosedStoreRefusesCalls() {
        redis.close();
        assertThatThrownBy(() ->
                        redis.integer(COMMAND, new String[0], "EXISTS", "k").get())
                .cause()
                .isInstanceOf(RedisException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() ->
                        redis.subscriber((c, m) -> {}, c -> {}).subscribe("ch").get())
                .cause()
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> redis.dump("k")).hasMessageContaining("closed");
    }

    @Test
    void manyCallersAtOnceAllGetTheirReplyAndNoWriteIsLost() throws Exception {
        int threads = 8;
        int calls = 500;
        ExecutorService callers = Executors.newFixedThreadPool(threads);
        try {
            List<CompletableFuture<Long>> replies = new ArrayList<>();
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                sent.add(callers.submit(() -> {
                    for (int i = 0; i < calls; i++) {
                        CompletableFuture<Long> reply =
                                redis.integer(COMMAND, new String[0], "RPUSH", "list", thread + ":" + i);
                        synchronized (replies) {
                            replies.add(reply);
                        }
                    }
                }));
            }
            for (java.util.concurrent.Future<?> s : sent) {
                s.get(30, TimeUnit.SECONDS);
            }
            CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
            assertThat(replies.stream().map(CompletableFuture::join).sorted().toList())
                    .as("each RPUSH saw the list one longer")
                    .isEqualTo(LongStream.rangeClosed(1, (long) threads * calls)
                            .boxed()
                            .toList());
            @SuppressWarnings("unchecked")
            List<String> list = (List<String>) redis.dump("list").get("list").value();
            assertThat(list).hasSize(threads * calls).doesNotHaveDuplicates();
        } finally {
            callers.shutdownNow();
        }
    }
}
