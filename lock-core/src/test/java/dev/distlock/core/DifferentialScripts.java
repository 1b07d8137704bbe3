package dev.distlock.core;

import dev.distlock.core.KeyStates.Tolerance;
import dev.distlock.core.internal.memory.MemoryRedis.Entry;
import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Makes every script call of the script tests differential: the call runs on the real Redis as ever,
 * and also on a {@code MemoryRedis} loaded with the state its KEYS had in Redis right before; the
 * replies, the KEYS' state afterwards and the messages published must agree. Each disagreement is
 * described (script, KEYS, ARGV, state before, both sides) in {@link #finish}'s list, which the fixture
 * asserts empty after each test.
 *
 * <p>Around the Redis run, sent in one pipeline on the test's own connection: a TIME, the KEYS' state
 * (every read of every type, and PTTL), a marker PUBLISH, the script, a second marker (a pattern
 * subscriber takes what came between the markers as the script's messages), the KEYS' state again
 * and a second TIME. The caller gets the script's reply as soon as it is in; the memory run and the
 * comparison follow on another thread. MemoryRedis runs on the first TIME, frozen; Redis ran its
 * script a little later, so clock-derived numbers (tokens in microseconds, deadlines, TTLs and replies
 * that count down) may differ by up to the time between the two TIMEs: {@link Tolerance} says how. A
 * call that finds a key whose TTL ends within that time, or within 20 ms, is not compared (it may expire
 * in one run and not the other, and replies count down to it in a few ms, which are compared exactly:
 * {@link Tolerance#inconclusiveWithinMs}; {@link #inconclusive} counts them). Messages are compared on the lock's channels
 * (those holding KEYS[1]'s hash tag); the memory run subscribes to each ARGV and each ARGV followed by
 * an owner found in ARGV or in a list key (a fair waiter's own channel).
 */
final class DifferentialScripts implements AutoCloseable {

    private static final String MARKER = "distlock-test:differential-marker";

    private final RedisAsyncCommands<String, String> redis;
    private final RedisClient client;
    private final StatefulRedisPubSubConnection<String, String> watch;
    private final MemoryRun memory = new MemoryRun();
    private final ExecutorService comparing = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "differential-scripts");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, LockScript> scripts = new HashMap<>();
    private final List<String[]> messages = new ArrayList<>();
    private final Map<String, CompletableFuture<List<String[]>>> markers = new ConcurrentHashMap<>();
    private final List<CompletableFuture<?>> pending = Collections.synchronizedList(new ArrayList<>());
    /** The calls whose two runs disagreed, each described. */
    private final List<String> mismatches = Collections.synchronizedList(new ArrayList<>());
    /** Calls compared, and calls left uncompared (a TTL about to end). */
    final AtomicLong compared = new AtomicLong();

    final AtomicLong inconclusive = new AtomicLong();

    /** Compares the calls of every script LockScript declares, and of {@code others}. */
    DifferentialScripts(RedisServer server, RedisAsyncCommands<String, String> redis, LockScript... others)
            throws Exception {
        this.redis = redis;
        List<LockScript> all = new ArrayList<>(ScriptRunnerTest.allScripts());
        all.addAll(List.of(others));
        for (LockScript script : all) {
            scripts.put(script.sha1(), script);
            scripts.put(script.body(), script);
        }
        client = RedisClient.create(server.uri());
        watch = client.connectPubSub(StringCodec.UTF8);
        watch.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String pattern, String channel, String message) {
                onMessage(channel, message);
            }
        });
        watch.sync().psubscribe("*");
    }

    private void onMessage(String channel, String message) {
        List<String[]> published;
        synchronized (messages) {
            if (!channel.equals(MARKER)) {
                messages.add(new String[] {channel, message});
                return;
            }
            published = new ArrayList<>(messages);
            messages.clear(); // a marker sent right before the script drops what others published earlier
        }
        CompletableFuture<List<String[]>> marker = markers.remove(message);
        if (marker != null) {
            marker.complete(published);
        }
    }

    /** Redis' commands as ScriptRunner takes them, with every EVALSHA and EVAL of a lock script run both ways. */
    @SuppressWarnings("unchecked")
    RedisClusterAsyncCommands<String, String> commands() {
        return (RedisClusterAsyncCommands<String, String>) Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {RedisClusterAsyncCommands.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("dispatch") && args.length == 3) {
                        ScriptCall call =
                                ScriptCall.of(scripts, (ProtocolKeyword) args[0], (CommandArgs<?, ?>) args[2]);
                        if (call != null) {
                            return differential(call, args);
                        }
                    }
                    return forward(method, args);
                });
    }

    private Object forward(Method method, Object[] args) throws Throwable {
        try {
            return method.invoke(redis, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /**
     * Sends the pipeline around the Redis run and hands ScriptRunner the script's own reply as soon as it
     * is in; the comparison follows on another thread (see {@link #finish}), so the calls of a test keep
     * their pace (a test may count on a short lease lasting from one call to the next).
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private RedisFuture<Object> differential(ScriptCall call, Object[] dispatch) {
        String callId = UUID.randomUUID().toString();
        CompletableFuture<List<String[]>> published = new CompletableFuture<>();
        markers.put(callId, published);
        CompletableFuture<List<String>> timeBefore = redis.time().toCompletableFuture();
        CompletableFuture<Map<String, Entry>> before = KeyStates.read(redis, call.keys());
        redis.publish(MARKER, callId + ":before");
        RedisFuture<Object> real =
                redis.dispatch((ProtocolKeyword) dispatch[0], (CommandOutput) dispatch[1], (CommandArgs) dispatch[2]);
        redis.publish(MARKER, callId);
        CompletableFuture<Map<String, Entry>> after = KeyStates.read(redis, call.keys());
        CompletableFuture<List<String>> timeAfter = redis.time().toCompletableFuture();
        boolean integer = dispatch[1] instanceof IntegerOutput;
        CompletableFuture<ScriptOutcome> onRedis = real.toCompletableFuture()
                .handle((value, error) ->
                        new ScriptOutcome(value, error == null ? null : unwrap(error), Map.of(), List.of()));
        pending.add(CompletableFuture.allOf(onRedis, timeBefore, before, after, timeAfter)
                .thenCompose(done -> {
                    if (onRedis.join().error() instanceof RedisNoScriptException) {
                        markers.remove(callId); // ran nothing: ScriptRunner sends it again with EVAL
                        return CompletableFuture.completedFuture(null);
                    }
                    return published
                            .orTimeout(10, TimeUnit.SECONDS)
                            .thenAcceptAsync(
                                    messages -> {
                                        ScriptOutcome outcome = onRedis.join();
                                        long t0 = micros(timeBefore.join());
                                        compare(
                                                call,
                                                integer,
                                                before.join(),
                                                t0,
                                                micros(timeAfter.join()) - t0,
                                                new ScriptOutcome(
                                                        outcome.reply(),
                                                        outcome.error(),
                                                        after.join(),
                                                        onLockChannels(messages, call)));
                                    },
                                    comparing);
                })
                .exceptionally(failure -> {
                    mismatches.add("comparing " + call + " failed: " + failure);
                    return null;
                }));
        return real;
    }

    /** Waits for the comparisons still running; returns every mismatch found. */
    List<String> finish() {
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                .orTimeout(60, TimeUnit.SECONDS)
                .exceptionally(timeout -> {
                    mismatches.add("comparisons did not finish: " + timeout);
                    return null;
                })
                .join();
        return List.copyOf(mismatches);
    }

    private void compare(
            ScriptCall call,
            boolean integer,
            Map<String, Entry> before,
            long t0,
            long driftMicros,
            ScriptOutcome redisSide) {
        Tolerance tolerance = new Tolerance(driftMicros);
        if (before.values().stream()
                .anyMatch(e -> e.ttlMillis() >= 0 && e.ttlMillis() <= tolerance.inconclusiveWithinMs())) {
            inconclusive.incrementAndGet();
            return;
        }
        ScriptOutcome memorySide;
        try {
            memorySide = memory.run(call, integer, before, t0);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        List<String> differences = new ArrayList<>();
        if ((redisSide.error() == null) != (memorySide.error() == null)) {
            differences.add("one side failed");
        } else if (redisSide.error() != null) {
            if (!code(redisSide.error()).equals(code(memorySide.error()))) {
                differences.add("error codes");
            }
        } else if (!tolerance.same(redisSide.reply(), memorySide.reply())) {
            differences.add("replies");
        }
        differences.addAll(KeyStates.differences(call.keys(), redisSide.after(), memorySide.after(), tolerance));
        if (!tolerance.same(redisSide.messages(), memorySide.messages())) { // a fair grant's token and TTL
            differences.add("messages");
        }
        compared.incrementAndGet();
        if (!differences.isEmpty()) {
            mismatches.add("MemoryRedis differs from Redis " + differences + " on " + call.script() + "\n  KEYS "
                    + call.keys() + "\n  ARGV " + call.args() + "\n  before " + before + "\n  clocks apart up to "
                    + driftMicros + " us\n  Redis:  " + redisSide.describe() + "\n  memory: "
                    + memorySide.describe());
        }
    }

    private static List<String> onLockChannels(List<String[]> messages, ScriptCall call) {
        String first = call.keys().isEmpty() ? "" : call.keys().get(0);
        int close = first.indexOf('}');
        String tag = close >= 0 ? first.substring(0, close + 1) : first;
        return messages.stream()
                .filter(m -> m[0].contains(tag) && !tag.isEmpty())
                .map(m -> m[0] + " " + m[1])
                .toList();
    }

    private static String code(Throwable error) {
        String message = String.valueOf(error.getMessage());
        return message.split(" ", 2)[0];
    }

    private static long micros(List<String> time) {
        return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
    }

    private static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof java.util.concurrent.CompletionException
                        || e instanceof java.util.concurrent.ExecutionException)
                && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    @Override
    public void close() {
        watch.close();
        ClientShutdown.shutdown(client);
        memory.close();
        comparing.shutdownNow();
    }
}
