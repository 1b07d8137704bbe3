package dev.distlock.core.testing;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockHandle;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.reactor.ReactiveLocks;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntFunction;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

/**
 * Child process of {@link MixedCallersAcrossProcessesTest}: on the same lock names at once, thread-bound
 * callers ({@link RedisLock#tryLock(Duration)}), async callers (handles from {@link RedisLock#tryLockAsync})
 * and reactive callers ({@link ReactiveLocks}) take turns. Each caller draws what to do next: a plain hold,
 * an error thrown inside the held work, a cancellation while waiting, or a cancellation while holding. Every
 * hold whose work got that far is recorded as {@code name,token,start,end,kind/pid} with start and end read
 * from the Redis server's clock (TIME) while held.
 *
 * <p>Arguments: redis URI, lock names (comma-separated; a name starting with {@code fair-} is taken as a fair
 * lock), run time in ms, output file. Prints {@code READY}, waits for {@code GO} on stdin, runs (on past the run
 * time until it saw each of {@link #EVENTS}, for {@link #EXTRA_TIME} at the most), checks that every
 * grant was released exactly once (listener counts, nothing held by the client, every handle refuses a second
 * release) and prints {@code DONE} with counters ({@code key=value}), then exits 0, or 1 after a failed check.
 */
public final class MixedCallerWorker {

    /**
     * What every run must have seen: each caller kind granted, and each way of leaving a hold or a wait. Past
     * its run time a worker goes on until it has seen each once (a loaded host makes few calls in a few
     * seconds), for {@link #EXTRA_TIME} at the most.
     */
    public static final List<String> EVENTS = List.of(
            "thread.holds",
            "async.holds",
            "reactive.holds",
            "mono.holds",
            "async.cancelledWaiting",
            "async.cancelledHolding",
            "async.failedInside",
            "reactive.cancelledWaiting",
            "reactive.cancelledHolding",
            "reactive.failedInside");

    /** How long a worker may run past its run time to see every one of {@link #EVENTS}. */
    public static final Duration EXTRA_TIME = Duration.ofSeconds(45);

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int THREADS = 2;
    private static final int ASYNC_CHAINS = 4;
    private static final int REACTIVE_CHAINS = 4;

    private final LockClient client;
    private final StatefulRedisConnection<String, String> clock;
    private final String[] names;
    private final PrintWriter out;
    private final long deadline;
    private final String pid = Long.toString(ProcessHandle.current().pid());
    private final Map<String, AtomicLong> counters = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();

    private MixedCallerWorker(
            LockClient client,
            StatefulRedisConnection<String, String> clock,
            String[] names,
            PrintWriter out,
            long deadline) {
        this.client = client;
        this.clock = clock;
        this.names = names;
        this.out = out;
        this.deadline = deadline;
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String[] names = args[1].split(",");
        long runNanos = TimeUnit.MILLISECONDS.toNanos(Long.parseLong(args[2]));
        Path output = Path.of(args[3]);
        AtomicLong granted = new AtomicLong();
        AtomicLong released = new AtomicLong();
        AtomicLong lost = new AtomicLong();
        LockListener counting = new LockListener() {
            @Override
            public void onAcquire(LockInfo lock, AcquireOutcome outcome, Duration waited) {
                if (outcome == AcquireOutcome.ACQUIRED) {
                    granted.incrementAndGet();
                }
            }

            @Override
            public void onRelease(LockInfo lock, Duration held) {
                released.incrementAndGet();
            }

            @Override
            public void onLeaseLost(LockInfo lock, String reason) {
                lost.incrementAndGet();
            }
        };
        RedisClient redis = RedisClient.create(uri);
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        MixedCallerWorker worker;
        try (LockClient client = LockClient.create(
                        RedisURI.create(uri),
                        LockClientOptions.builder().listener(counting).build());
                StatefulRedisConnection<String, String> clock = redis.connect();
                PrintWriter out = new PrintWriter(Files.newBufferedWriter(output, StandardCharsets.UTF_8))) {
            ChildMain.readyThenGo(stdin);
            worker = new MixedCallerWorker(client, clock, names, out, System.nanoTime() + runNanos);
            worker.run();
            // listener events of a release may follow its stage by a moment
            long settle = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while ((released.get() != granted.get() || client.activeHolds() != 0) && System.nanoTime() < settle) {
                Thread.sleep(10);
            }
            worker.check(client.activeHolds() == 0, "the client still holds " + client.activeHolds() + " locks");
            worker.check(
                    granted.get() == released.get(),
                    granted + " grants reported, but " + released + " releases: not every grant released once");
            worker.check(lost.get() == 0, lost + " leases lost");
            worker.count("granted", granted.get());
        } finally {
            ClientShutdown.shutdown(redis);
        }
        StringBuilder done = new StringBuilder("DONE");
        worker.counters.forEach((k, v) -> done.append(' ').append(k).append('=').append(v));
        System.out.println(done);
        worker.failures.forEach(f -> System.out.println("FAILURE " + f));
        System.out.flush();
        System.exit(worker.failures.isEmpty() ? 0 : 1);
    }

    private void run() throws Exception {
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Thread thread = new Thread(this::threadBoundLoop, "thread-bound-" + t);
            thread.start();
            threads.add(thread);
        }
        List<CompletableFuture<Void>> chains = new ArrayList<>();
        for (int c = 0; c < ASYNC_CHAINS; c++) {
            chains.add(loop(this::oneAsyncCall));
        }
        for (int c = 0; c < REACTIVE_CHAINS; c++) {
            chains.add(loop(this::oneReactiveCall));
        }
        for (Thread thread : threads) {
            thread.join();
        }
        CompletableFuture.allOf(chains.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }

    private boolean running() {
        if (!failures.isEmpty()) {
            return false;
        }
        long now = System.nanoTime();
        return now - deadline < 0
                || (now - deadline < EXTRA_TIME.toNanos() && !EVENTS.stream().allMatch(e -> counters.containsKey(e)));
    }

    private RedisLock lock(String name) {
        return name.startsWith("fair-") ? client.getFairLock(name) : client.getLock(name);
    }

    private String anyName() {
        return names[ThreadLocalRandom.current().nextInt(names.length)];
    }

    // ---- thread-bound callers

    private void threadBoundLoop() {
        try {
            while (running()) {
                String name = anyName();
                RedisLock lock = lock(name);
                if (!lock.tryLock(WAIT)) {
                    count("thread.busy", 1);
                    continue;
                }
                try {
                    long start = micros(clock.sync().time());
                    record(
                            name,
                            lock.currentFencingToken(),
                            start,
                            micros(clock.sync().time()),
                            "thread");
                } finally {
                    lock.unlock();
                }
            }
        } catch (Throwable e) {
            fail("thread-bound caller died: " + e);
        }
    }

    // ---- async callers (CompletionStage)

    /**
     * Runs calls one after the other until the run time is over; the n-th call of a chain does scenario
     * {@code (first + n) % 10}, so every scenario comes up within ten calls of every chain, however slow the run.
     */
    private CompletableFuture<Void> loop(IntFunction<CompletionStage<?>> call) {
        return loop(call, ThreadLocalRandom.current().nextInt(10));
    }

    private CompletableFuture<Void> loop(IntFunction<CompletionStage<?>> call, int scenario) {
        if (!running()) {
            return CompletableFuture.completedFuture(null);
        }
        return call.apply(scenario % 10)
                .toCompletableFuture()
                .<Void>handle((ok, error) -> {
                    if (error != null) {
                        fail("call ended unexpectedly: " + error);
                    }
                    return null;
                })
                .thenCompose(ignored -> loop(call, scenario + 1));
    }

    private CompletableFuture<Void> oneAsyncCall(int what) {
        String name = anyName();
        CompletableFuture<Optional<LockHandle>> waiting =
                lock(name).tryLockAsync(WAIT).toCompletableFuture();
        if (what == 0 && waiting.cancel(true)) { // cancel while waiting: at once, before any reply came
            count("async.cancelledWaiting", 1);
        } else if (what == 3) { // cancel a moment later: while waiting, or after the grant came first
            CompletableFuture.delayedExecutor(ThreadLocalRandom.current().nextInt(1, 3), TimeUnit.MILLISECONDS)
                    .execute(() -> {
                        if (waiting.cancel(true)) {
                            count("async.cancelledWaiting", 1);
                        }
                    });
        }
        return waiting.<CompletableFuture<Void>>handle((handle, error) -> {
                    if (error != null) {
                        check(waiting.isCancelled(), "async wait failed: " + error);
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    if (handle.isEmpty()) {
                        count("async.busy", 1);
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    return heldAsync(name, handle.get(), what);
                })
                .thenCompose(stage -> stage);
    }

    /** The work of an async holder: record the hold, then end normally, fail, or be cancelled; release once. */
    private CompletableFuture<Void> heldAsync(String name, LockHandle handle, int what) {
        CompletableFuture<Void> work = times().thenCompose(start -> times().thenCompose(end -> {
            record(name, handle.fencingToken(), start, end, "async");
            if (what == 1) {
                throw new IllegalStateException("failure inside the held work");
            }
            if (what == 2) { // cancelled while held: the work never ends by itself
                CompletableFuture<Void> never = new CompletableFuture<>();
                CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS).execute(() -> never.cancel(true));
                return never;
            }
            return CompletableFuture.completedFuture(null);
        }));
        return work.handle((ok, error) -> error)
                .thenCompose(error -> handle.unlockAsync().thenApply(released -> error))
                .thenAccept(error -> {
                    Throwable cause = error instanceof CompletionException ? error.getCause() : error;
                    if (what == 1) {
                        check(cause instanceof IllegalStateException, "async work should fail: " + cause);
                        count("async.failedInside", 1);
                    } else if (what == 2) {
                        check(cause instanceof CancellationException, "async work should be cancelled: " + cause);
                        count("async.cancelledHolding", 1);
                    } else {
                        check(cause == null, "async work failed: " + cause);
                    }
                    expectReleased(handle, "async");
                });
    }

    // ---- reactive callers (Mono / Flux from ReactiveLocks)

    private CompletionStage<?> oneReactiveCall(int what) {
        String name = anyName();
        RedisLock lock = lock(name);
        AtomicReference<LockHandle> held = new AtomicReference<>();
        AtomicBoolean cancelled = new AtomicBoolean();
        Sinks.One<Boolean> holdRecorded = Sinks.one();
        Mono<Void> call;
        if (what < 6) { // usingLock: released by ReactiveLocks on complete, error and cancel
            call = ReactiveLocks.usingLock(lock, WAIT, handle -> {
                        held.set(handle);
                        Mono<Void> recorded = recorded(name, handle, "reactive");
                        return switch (what) {
                            case 0 -> recorded.then(Mono.error(new IllegalStateException("failure inside")));
                            case 1 ->
                                recorded.then(Mono.fromRunnable(() -> holdRecorded.tryEmitValue(true)))
                                        .then(Mono.never());
                            default -> recorded;
                        };
                    })
                    .then();
            if (what == 0) {
                call = call.onErrorResume(IllegalStateException.class, e -> {
                    count("reactive.failedInside", 1);
                    return Mono.empty();
                });
            } else if (what
                    == 1) { // cancelled while holding: once the hold was recorded, its endless work is cancelled
                call = call.takeUntilOther(holdRecorded.asMono()).doOnSuccess(v -> {
                    cancelled.set(true);
                    count("reactive.cancelledHolding", 1);
                });
            } else if (what == 2) { // cancelled at once after subscribing: while waiting for the first reply
                call.toFuture().cancel(true);
                count(held.get() != null ? "reactive.cancelledHolding" : "reactive.cancelledWaiting", 1);
                cancelled.set(true);
                call = Mono.empty();
            }
        } else { // a Mono<LockHandle>, released by the caller
            call = ReactiveLocks.tryLock(lock, WAIT)
                    .switchIfEmpty(Mono.fromRunnable(() -> count("mono.busy", 1)))
                    .flatMap(handle -> {
                        held.set(handle);
                        return recorded(name, handle, "mono").then(Mono.fromCompletionStage(handle::unlockAsync));
                    });
        }
        return call.toFuture().thenCompose(ok -> {
            if (held.get() == null) {
                return CompletableFuture.completedFuture(null);
            }
            // a cancel releases in the background: give it a moment before looking
            CompletableFuture<Void> later = new CompletableFuture<>();
            CompletableFuture.delayedExecutor(cancelled.get() ? 50 : 0, TimeUnit.MILLISECONDS)
                    .execute(() -> {
                        expectReleased(held.get(), "reactive");
                        later.complete(null);
                    });
            return later;
        });
    }

    private Mono<Void> recorded(String name, LockHandle handle, String kind) {
        return Mono.fromCompletionStage(this::times)
                .flatMap(start -> Mono.fromCompletionStage(this::times)
                        .doOnNext(end -> record(name, handle.fencingToken(), start, end, kind)))
                .then();
    }

    // ---- shared

    /** A handle is released once: no longer held, and a second release is refused. */
    private void expectReleased(LockHandle handle, String kind) {
        check(!handle.isHeld(), kind + " handle of " + handle.key() + " still held after its work ended");
        try {
            handle.unlock();
            fail(kind + " handle of " + handle.key() + " released a second time");
        } catch (IllegalStateException expected) {
            // released before: exactly once
        }
    }

    private CompletableFuture<Long> times() {
        return clock.async().time().toCompletableFuture().thenApply(MixedCallerWorker::micros);
    }

    private static long micros(List<String> time) {
        return Long.parseLong(time.get(0)) * 1_000_000L + Long.parseLong(time.get(1));
    }

    private void record(String name, long token, long start, long end, String kind) {
        synchronized (out) {
            out.println(name + "," + token + "," + start + "," + end + "," + kind + "/" + pid);
        }
        count(kind + ".holds", 1);
    }

    private void count(String what, long n) {
        counters.computeIfAbsent(what, k -> new AtomicLong()).addAndGet(n);
    }

    private void check(boolean ok, String what) {
        if (!ok) {
            fail(what);
        }
    }

    private void fail(String what) {
        failures.add(what);
        System.out.println("FAILURE " + what);
        System.out.flush();
    }
}
