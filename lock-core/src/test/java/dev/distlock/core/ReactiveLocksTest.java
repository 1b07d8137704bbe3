package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.reactor.ReactiveLocks;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/** The Reactor views: work runs under the lock, and the lock is released once on complete, error and cancel. */
@BehaviourTest
class ReactiveLocksTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final Duration GENEROUS = Duration.ofSeconds(10);

    private LockClient client;
    private LockClient other;
    private String name;

    @BeforeEach
    void setUp() {
        client = LockClient.create(RedisURI.create(redis.server().uri()));
        other = LockClient.create(RedisURI.create(redis.server().uri()));
        name = "reactive-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void tearDown() {
        client.close();
        other.close();
    }

    private boolean lockedInRedis() {
        return other.getLock(name).isLocked();
    }

    @Test
    void usingLockRunsTheWorkUnderTheLockAndReleasesOnComplete() {
        List<Boolean> seen = ReactiveLocks.usingLock(
                        client.getLock(name),
                        Duration.ofSeconds(1),
                        handle -> Flux.just(1, 2, 3).map(i -> lockedInRedis() && handle.isHeld()))
                .collectList()
                .block(GENEROUS);

        assertThat(seen).containsExactly(true, true, true);
        assertThat(lockedInRedis()).isFalse();
    }

    @Test
    void usingLockReleasesOnError() {
        Flux<Object> failing = ReactiveLocks.usingLock(
                client.getLock(name),
                Duration.ofSeconds(1),
                handle -> Mono.error(new IllegalStateException("payment refused")));

        assertThatThrownBy(() -> failing.blockLast(GENEROUS)).hasMessageContaining("payment refused");
        assertThat(lockedInRedis()).isFalse();
    }

    @Test
    void usingLockReleasesOnCancel() {
        AtomicBoolean started = new AtomicBoolean();
        Disposable running = ReactiveLocks.usingLock(
                        client.getLock(name),
                        Duration.ofSeconds(1),
                        handle -> Flux.never().doOnSubscribe(s -> started.set(true)))
                .subscribe();
        await().atMost(GENEROUS).untilTrue(started);
        assertThat(lockedInRedis()).isTrue();

        running.dispose();

        await().atMost(GENEROUS).until(() -> !lockedInRedis());
    }

    @Test
    void usingLockFailsWithLockAcquisitionExceptionWhenBusyAndRunsNothing() {
        RedisLock holder = other.getLock(name);
        holder.lock();
        AtomicBoolean ran = new AtomicBoolean();
        try {
            Flux<Object> busy = ReactiveLocks.usingLock(client.getLock(name), Waits.RUNS_OUT, handle -> {
                ran.set(true);
                return Flux.empty();
            });
            assertThatThrownBy(() -> busy.blockLast(GENEROUS)).isInstanceOf(LockAcquisitionException.class);
            assertThat(ran).isFalse();
        } finally {
            holder.unlock();
        }
    }

    @Test
    void tryLockIsEmptyWhenTheWaitRunsOutAndCancellingAWaitLeavesNothing() {
        RedisLock holder = other.getLock(name);
        holder.lock();
        assertThat(ReactiveLocks.tryLock(client.getLock(name), Waits.RUNS_OUT).blockOptional(GENEROUS))
                .isEmpty();

        Disposable waiting = ReactiveLocks.lock(client.getLock(name)).subscribe(LockHandle::unlock);
        await().atMost(GENEROUS).until(() -> client.subscribedChannels() == 1);
        waiting.dispose();
        holder.unlock();

        await().atMost(GENEROUS).until(() -> !lockedInRedis());
        assertThat(client.activeHolds()).isZero();
    }

    @Test
    void usingPermitsRunsTheWorkHoldingThemReleasesOnceAndFailsWhenTheyStayTaken() throws Exception {
        RedisSemaphore semaphore = client.getSemaphore(name, 2);
        List<Integer> free = ReactiveLocks.usingPermits(
                        semaphore,
                        2,
                        Waits.GRANTED, // a blocking call, so off the thread that delivered the grant (Lettuce's I/O
                        // thread)
                        handle ->
                                Mono.fromCallable(semaphore::availablePermits).subscribeOn(Schedulers.boundedElastic()))
                .collectList()
                .block(GENEROUS);
        assertThat(free).containsExactly(0);
        assertThat(semaphore.availablePermits()).isEqualTo(2);

        LockHandle taken = other.getSemaphore(name, 2).acquire(2);
        AtomicBoolean ran = new AtomicBoolean();
        Flux<Object> busy = ReactiveLocks.usingPermits(semaphore, 1, Waits.RUNS_OUT, handle -> {
            ran.set(true);
            return Flux.empty();
        });
        assertThatThrownBy(() -> busy.blockLast(GENEROUS))
                .isInstanceOf(LockAcquisitionException.class)
                .hasMessageContaining("Semaphore '" + name + "'");
        assertThat(ran).isFalse();
        assertThat(ReactiveLocks.tryAcquire(semaphore, 1, Duration.ZERO).blockOptional(GENEROUS))
                .isEmpty();
        taken.unlock();
    }
}
