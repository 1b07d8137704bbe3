package dev.distlock.core.internal.memory;

import dev.distlock.core.internal.memory.Commands.Failure;
import dev.distlock.core.internal.memory.Keyspace.Slot;
import dev.distlock.core.internal.memory.Keyspace.Type;
import dev.distlock.core.internal.redis.script.LockScript;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * An in-process stand-in for one Redis server, for local mode: runs the real lock scripts (LuaJ) over
 * an in-memory keyspace with the Redis commands they call, plus pub/sub. Like Redis it runs one script
 * at a time, atomically, on one thread ({@value #THREAD}); callers' futures complete on that thread, as
 * Lettuce completes them on its event loop, so a caller must never block that thread waiting for
 * another call. Messages a script publishes go out on that thread after the script's reply, in the
 * order published. Internal: not part of the public API.
 */
public final class MemoryRedis implements AutoCloseable {

    static final String THREAD = "distlock-memory-redis";
    private static final long SWEEP_EVERY_MS = 1_000;

    static {
        // LuaJ lives on the class path (it cannot be a module): a named dev.distlock.core must read it
        MemoryRedis.class
                .getModule()
                .addReads(MemoryRedis.class.getClassLoader().getUnnamedModule());
    }

    private final LongSupplier clockMicros;
    private final ScheduledExecutorService thread;
    private final Keyspace keys = new Keyspace();
    private final LuaRunner lua = new LuaRunner();
    /** Channel to its subscribers, in the order they subscribed. */
    private final Map<String, List<Subscriber>> channels = new HashMap<>();
    /** Messages published by the script that runs now, delivered once it is over. */
    private final List<String[]> published = new ArrayList<>();

    private final Commands commands = new Commands(keys, (channel, message) -> {
        published.add(new String[] {channel, message});
        return channels.getOrDefault(channel, List.of()).size();
    });
    private volatile boolean closed;
    private volatile @Nullable Thread storeThread;

    /** A store on the system clock. */
    public MemoryRedis() {
        this(MemoryRedis::systemMicros);
    }

    /** A store on {@code clockMicros}, microseconds since the epoch: what TIME answers and expiry reads. */
    public MemoryRedis(LongSupplier clockMicros) {
        this.clockMicros = clockMicros;
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, THREAD);
            storeThread = t;
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(() -> keys.sweep(nowMs()), SWEEP_EVERY_MS, SWEEP_EVERY_MS, TimeUnit.MILLISECONDS);
    }

    private static long systemMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    /** Runs a script whose reply is an integer (null for a nil reply, as Lettuce's integer output gives). */
    public CompletableFuture<Long> integer(LockScript script, String[] keys, String... args) {
        return script(script, keys, args, ReplyShapes::integer);
    }

    /**
     * Runs a script whose reply is a flat array: Long, String and null elements, as the Redis runner's
     * output yields them (an array inside starts the list afresh, as there).
     */
    public CompletableFuture<List<Object>> array(LockScript script, String[] keys, String... args) {
        return script(script, keys, args, ReplyShapes::flatArray);
    }

    /** PTTL: -2 when the key is absent, -1 when it has no TTL, else the milliseconds it has left. */
    public CompletableFuture<Long> pttl(String key) {
        return command(List.of("PTTL", key)).thenApply(Long.class::cast);
    }

    /** EXISTS of one key: 1 or 0. */
    public CompletableFuture<Long> exists(String key) {
        return command(List.of("EXISTS", key)).thenApply(Long.class::cast);
    }

    /**
     * A pub/sub client, as one pub/sub connection: {@code onMessage} gets (channel, message), {@code
     * onSubscribed} each channel once subscribed; both on this store's thread.
     */
    public Subscriber subscriber(BiConsumer<String, String> onMessage, Consumer<String> onSubscribed) {
        return new Subscriber(this, onMessage, onSubscribed);
    }

    private <T> CompletableFuture<T> script(
            LockScript script, String[] scriptKeys, String[] args, Function<@Nullable Object, T> output) {
        String[] k = scriptKeys.clone();
        String[] a = args.clone();
        return submit(() -> lua.run(script, k, a, commands, nowMs(), clockMicros))
                .thenApply(output);
    }

    private CompletableFuture<@Nullable Object> command(List<String> command) {
        return submit(() -> commands.run(command, nowMs(), clockMicros.getAsLong()));
    }

    /**
     * Runs {@code work} on the store's thread and completes the future there with its reply (exceptionally
     * for an error reply), then delivers what it published.
     */
    private CompletableFuture<@Nullable Object> submit(Supplier<@Nullable Object> work) {
        CompletableFuture<@Nullable Object> future = new CompletableFuture<>();
        Runnable task = () -> {
            Object reply;
            try {
                reply = work.get();
            } catch (RuntimeException | Error e) {
                published.clear();
                future.completeExceptionally(e);
                return;
            }
            if (reply instanceof Failure failure) {
                future.completeExceptionally(new RedisCommandExecutionException(failure.message()));
            } else {
                future.complete(reply);
            }
            deliver();
        };
        if (!runOnThread(task)) {
            future.completeExceptionally(new RedisException("MemoryRedis is closed"));
        }
        return future;
    }

    /** Hands what the last script published to the subscribers it reached, in publish order. */
    private void deliver() {
        if (published.isEmpty()) {
            return;
        }
        List<String[]> messages = new ArrayList<>(published);
        published.clear();
        for (String[] message : messages) {
            for (Subscriber subscriber : List.copyOf(channels.getOrDefault(message[0], List.of()))) {
                subscriber.deliver(message[0], message[1]);
            }
        }
    }

    /** False when closed. */
    boolean runOnThread(Runnable task) {
        if (closed) {
            return false;
        }
        try {
            thread.execute(task);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Subscribes on the store's thread. */
    void subscribe(Subscriber subscriber, String channel) {
        List<Subscriber> subscribers = channels.computeIfAbsent(channel, c -> new ArrayList<>());
        if (!subscribers.contains(subscriber)) {
            subscribers.add(subscriber);
        }
    }

    /** Unsubscribes on the store's thread. */
    void unsubscribe(Subscriber subscriber, String channel) {
        List<Subscriber> subscribers = channels.get(channel);
        if (subscribers != null && subscribers.remove(subscriber) && subscribers.isEmpty()) {
            channels.remove(channel);
        }
    }

    private long nowMs() {
        return Math.floorDiv(clockMicros.getAsLong(), 1_000L);
    }

    /**
     * A key's state: its TYPE name ("string", "hash", "list", "zset"), its value (a {@code String}, a
     * {@code Map<String, String>}, a {@code List<String>}, or a {@code Map<String, Double>} of member to
     * score) and the milliseconds it has left ({@code -1}: no TTL).
     */
    public record Entry(String type, Object value, long ttlMillis) {}

    /** The present keys among {@code names} with their state now; absent ones are left out. */
    public Map<String, Entry> dump(String... names) {
        return onThread(() -> {
            long nowMs = nowMs();
            Map<String, Entry> entries = new LinkedHashMap<>();
            for (String name : names) {
                Slot slot = keys.lookup(name, nowMs);
                if (slot != null) {
                    long ttl = slot.expireAtMs < 0 ? -1 : Math.max(0, slot.expireAtMs - nowMs);
                    entries.put(name, new Entry(slot.type.redisName, copy(slot.type, slot.value), ttl));
                }
            }
            return entries;
        });
    }

    /** Sets the keys in {@code entries} to their state, and deletes those among {@code names} that it leaves out. */
    public void load(Map<String, Entry> entries, String... names) {
        onThread(() -> {
            long nowMs = nowMs();
            for (String name : names) {
                keys.remove(name);
            }
            entries.forEach((name, entry) -> {
                Type type = Type.named(entry.type());
                long expireAt = entry.ttlMillis() < 0 ? -1 : nowMs + entry.ttlMillis();
                keys.put(name, new Slot(type, copy(type, entry.value()), expireAt));
            });
            return null;
        });
    }

    /** How many keys the store holds, expired ones not yet swept included (tests). */
    int keyCount() {
        return onThread(keys::size);
    }

    @SuppressWarnings("unchecked")
    private static Object copy(Type type, Object value) {
        return switch (type) {
            case STRING -> (String) value;
            case HASH -> new LinkedHashMap<>((Map<String, String>) value);
            case LIST -> new ArrayList<>((List<String>) value);
            case ZSET -> new HashMap<>((Map<String, Double>) value);
        };
    }

    private <T> T onThread(Supplier<T> work) {
        if (Thread.currentThread() == storeThread) {
            return work.get();
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        Runnable task = () -> {
            try {
                result.complete(work.get());
            } catch (RuntimeException | Error e) {
                result.completeExceptionally(e);
            }
        };
        if (!runOnThread(task)) {
            throw new RedisException("MemoryRedis is closed");
        }
        return result.join();
    }

    /** Refuses new calls from now on; calls already queued still run. */
    @Override
    public void close() {
        closed = true;
        thread.shutdown();
    }
}
