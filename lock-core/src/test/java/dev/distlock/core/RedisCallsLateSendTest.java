package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.RedisCalls;
import dev.distlock.core.internal.redis.RedisConnections;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link RedisCalls#callAsync} whose first send fails as a dropped connection does, so that it sends
 * again after a back-off, and whose caller stops in the instant that retry is being sent: after the
 * retry's last look at the caller, before its command goes out. The caller's undo then reaches Redis
 * before the command; the call must undo it once more, after it. The command here is an INCR, the undo
 * a SET to 0, both on one connection as the engine's are.
 */
@BehaviourTest
class RedisCallsLateSendTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private RedisClient lettuce;
    private StatefulRedisConnection<String, String> connection;
    private RedisAsyncCommands<String, String> commands;
    private ScheduledExecutorService timers;
    private RedisCalls calls;
    private final LockKeys keys = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, Names.fresh("late-send"));
    private final String counter = keys.lock();
    private final AtomicInteger undos = new AtomicInteger();
    /** The command the call handed its undo as sent late. */
    private final AtomicReference<CompletableFuture<?>> late = new AtomicReference<>();

    @BeforeEach
    void setUp() {
        lettuce = RedisClient.create(redis.server().uri());
        connection = lettuce.connect();
        commands = connection.async();
        timers = Executors.newSingleThreadScheduledExecutor();
        calls = new RedisCalls(TimeUnit.SECONDS.toNanos(5), RedisConnections.MIN_STEP_NANOS, timers);
    }

    @AfterEach
    void tearDown() {
        timers.shutdownNow();
        connection.close();
        ClientShutdown.shutdown(lettuce);
    }

    @Test
    void aRetrySentAsItsCallerStopsIsUndoneAfterIt() throws Exception {
        AtomicReference<CompletableFuture<Long>> result = new AtomicReference<>();
        CompletableFuture<Long> call = callFailingOnce(() -> {
            // the caller stops now, and undoes what the call may have done so far
            result.get().cancel(true);
            undo();
        });
        result.set(call);

        await().atMost(Duration.ofSeconds(5)).until(call::isDone); // by the retry, on the timer thread
        afterEveryAttempt();
        assertThat(call).isCancelled();
        assertThat(commands.get(counter).get(5, TimeUnit.SECONDS))
                .as("the INCR sent after the caller's undo, undone again after it")
                .isEqualTo("0");
        assertThat(undos).as("the caller's undo, then the call's").hasValue(2);
        assertThat(late.get()).as("the late command, handed to the undo").isNotNull();
    }

    @Test
    void aRetryWhoseCallerWaitsKeepsItsEffect() throws Exception {
        CompletableFuture<Long> call = callFailingOnce(() -> {});

        assertThat(call.get(5, TimeUnit.SECONDS)).isEqualTo(1L);
        afterEveryAttempt();
        assertThat(commands.get(counter).get(5, TimeUnit.SECONDS)).isEqualTo("1");
        assertThat(undos).as("nothing undone").hasValue(0);
        assertThat(late.get()).isNull();
    }

    @Test
    void aCallStoppedBeforeItsRetrySendsNothingMore() throws Exception {
        AtomicInteger sends = new AtomicInteger();
        CompletableFuture<Long> call = calls.callAsync(
                () -> {
                    sends.incrementAndGet();
                    return CompletableFuture.failedFuture(new RedisException("Connection disconnected"));
                },
                System.nanoTime() + TimeUnit.SECONDS.toNanos(5),
                "testing",
                keys,
                this::undoLate);
        await().atMost(Duration.ofSeconds(5)).until(() -> sends.get() >= 2);
        call.cancel(true);
        int sentBefore = sends.get();

        TimeUnit.MILLISECONDS.sleep(300); // longer than the back-off between attempts
        afterEveryAttempt();
        assertThat(sends).as("no attempt after the cancel").hasValue(sentBefore);
        assertThat(undos).as("nothing sent late, nothing to undo").hasValue(0);
    }

    /**
     * An INCR of the counter, failing its first send as a dropped connection does; {@code beforeRetry}
     * runs as the retry is being sent, just before its command goes out.
     */
    private CompletableFuture<Long> callFailingOnce(Runnable beforeRetry) {
        AtomicInteger sends = new AtomicInteger();
        Supplier<CompletableFuture<Long>> incr = () -> {
            if (sends.incrementAndGet() == 1) {
                return CompletableFuture.failedFuture(new RedisException("Connection disconnected"));
            }
            beforeRetry.run();
            // A stage of its own, so the INCR goes out even if the call cancels it (as one the connection already
            // wrote): the test sees the order of the undo, whatever Lettuce would do with a cancelled command.
            return commands.incr(counter).toCompletableFuture().thenApply(n -> n);
        };
        return calls.callAsync(incr, System.nanoTime() + TimeUnit.SECONDS.toNanos(5), "testing", keys, this::undoLate);
    }

    private void undoLate(CompletableFuture<?> command) {
        late.set(command);
        undo();
    }

    private void undo() {
        undos.incrementAndGet();
        commands.set(counter, "0");
    }

    /** Waits until the timer thread has finished the attempt it is running (one thread: a task after it). */
    private void afterEveryAttempt() throws Exception {
        timers.submit(() -> null).get(5, TimeUnit.SECONDS);
    }
}
