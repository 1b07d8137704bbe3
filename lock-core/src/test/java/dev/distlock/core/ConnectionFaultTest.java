package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.LockOwner;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Bounds and reports that must hold when the network misbehaves, through a {@link FaultRelay}
 * between the client under test and a real Redis, which the test watches on a direct connection:
 * waits bounded while Redis is black-holed, a fixed lease's end reported at its end, wake-ups
 * surviving a pub/sub reconnect, and {@code close()} waking every waiter.
 */
@SlowTest
class ConnectionFaultTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** Short, so that the bounds below are short; the README documents the bound in its terms. */
    private static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(1);
    /** Generous slack over each documented bound: the machine running the build may be slow. */
    private static final Duration SLACK = Duration.ofSeconds(3);

    private final RecordingListener events = new RecordingListener();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private FaultRelay relay;
    private RedisCommands<String, String> observer;

    @BeforeEach
    void start() {
        relay = FaultRelay.to(redis.server());
        RedisProbe probe = RedisProbe.connect(redis.server());
        closeables.add(probe);
        closeables.add(relay);
        observer = probe.sync();
    }

    @AfterEach
    void stop() throws Exception {
        relay.heal();
        for (int i = closeables.size() - 1; i >= 0; i--) {
            closeables.get(i).close();
        }
    }

    @Test
    void callsReturnWithinTheirBoundsWhileRedisIsBlackHoledAndGrantsMadeMeanwhileAreGivenBack() throws Exception {
        LockClient client = throughRelay(LockClientOptions.builder().operationTimeout(OPERATION_TIMEOUT));
        LockOwner holder = owner("holder");
        String heldName = Names.fresh("held");
        String wantedName = Names.fresh("wanted");
        RedisLock held = client.getLock(heldName);
        RedisLock wanted = client.getLock(wantedName);
        holder.act(() -> held.lock());
        relay.blackHole();

        // tryLock(200 ms): false or unavailable, within its wait plus the documented 200 ms (generously)
        long start = System.nanoTime();
        try {
            assertThat(wanted.tryLock(Duration.ofMillis(200))).isFalse();
        } catch (LockUnavailableException expected) {
            assertThat(expected).hasMessageContaining("did not answer");
        }
        assertThat(since(start))
                .as("tryLock(200 ms) while black-holed")
                .isLessThan(Duration.ofMillis(400).plus(SLACK));

        // lock() without a wait: each step bounded by operationTimeout
        start = System.nanoTime();
        assertThatThrownBy(wanted::lock).isInstanceOf(LockUnavailableException.class);
        assertThat(since(start)).as("lock() while black-holed").isLessThan(OPERATION_TIMEOUT.plus(SLACK));
        assertThat(wanted.getHoldCount()).isZero();

        // unlock() of a hold: bounded by operationTimeout, says so, retried in the background
        start = System.nanoTime();
        assertThatThrownBy(() -> holder.act(held::unlock))
                .cause()
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("retried in the background");
        assertThat(since(start)).as("unlock() while black-holed").isLessThan(OPERATION_TIMEOUT.plus(SLACK));
        assertThat(holder.run(held::getHoldCount)).isZero();

        // Everything sent meanwhile reaches Redis on heal (as TCP retransmits): the acquisitions given up
        // on may be granted then, and must be given back; the unconfirmed release must land.
        relay.heal();
        await("both locks free in Redis after heal")
                .atMost(Duration.ofSeconds(15))
                .until(() -> observer.exists(key(heldName)) == 0 && observer.exists(key(wantedName)) == 0);

        relay.blackHole();
        start = System.nanoTime();
        client.close();
        assertThat(since(start))
                .as("close() while black-holed")
                .isLessThan(OPERATION_TIMEOUT.plus(SLACK).plus(Duration.ofSeconds(2)));
    }

    /** Every kind, free or busy (held by another client), while Redis is black-holed. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"reentrant", "fair", "read", "write", "multi"})
    void tryLockOfEveryKindReturnsWithinItsWaitWhileBlackHoled(String kind) throws Exception {
        LockClient client = throughRelay(LockClientOptions.builder().operationTimeout(OPERATION_TIMEOUT));
        LockClient holderClient = direct(LockClientOptions.builder());
        String free = Names.fresh("free-" + kind);
        String busy = Names.fresh("busy-" + kind);
        owner("holder").act(() -> lockOf(holderClient, kind, busy).lock());
        tryOnce(lockOf(client, kind, Names.fresh("warm-up"))); // connected, scripts loaded
        relay.blackHole();
        for (String name : List.of(free, busy)) {
            RedisLock lock = lockOf(client, kind, name);
            long start = System.nanoTime();
            try {
                assertThat(lock.tryLock(Duration.ofMillis(200))).as(name).isFalse();
            } catch (LockUnavailableException expected) {
                assertThat(expected).hasMessageContaining("did not answer");
            }
            assertThat(since(start))
                    .as("tryLock(200 ms) of %s while black-holed", name)
                    .isLessThan(Duration.ofMillis(400).plus(SLACK));
            assertThat(lock.getHoldCount()).isZero();
        }
    }

    private static RedisLock lockOf(LockClient client, String kind, String name) {
        return switch (kind) {
            case "reentrant" -> client.getLock(name);
            case "fair" -> client.getFairLock(name);
            case "read" -> (RedisLock) client.getReadWriteLock(name).readLock();
            case "write" -> (RedisLock) client.getReadWriteLock(name).writeLock();
            case "multi" -> client.getMultiLock(name, name + "-second");
            default -> throw new IllegalArgumentException(kind);
        };
    }

    @Test
    void fixedLeaseRunningOutWhileHeldIsReportedAtItsEndAndInterruptsTheHolder() throws Exception {
        LockClient client = throughRelay(LockClientOptions.builder().interruptOnLeaseLost(true));
        String name = Names.fresh("short-lease");
        RedisLock lock = client.getLock(name);
        LockOwner holder = owner("holder");
        AtomicLong acquiredAt = new AtomicLong();
        Future<Long> work = holder.submit(() -> {
            lock.lock(Duration.ofMillis(500));
            acquiredAt.set(System.nanoTime());
            try {
                Thread.sleep(20_000); // work longer than the lease, interruptible as good work is
                return -1L;
            } catch (InterruptedException e) {
                return System.nanoTime();
            }
        });
        long interruptedAt = work.get(30, TimeUnit.SECONDS);
        assertThat(interruptedAt).as("the holder was interrupted").isPositive();
        assertThat(Duration.ofNanos(interruptedAt - acquiredAt.get()))
                .as("interrupted at the lease's end, not at a watchdog tick (every 10 s of the 30 s lease)")
                .isLessThan(Duration.ofMillis(500).plus(Duration.ofSeconds(5)));
        assertThat(events.leaseLosses(name)).hasSize(1);
        assertThat(events.leaseLosses(name).get(0).reason()).contains("500 ms");
        assertThatThrownBy(() -> holder.act(lock::unlock)).cause().isInstanceOf(LockLeaseExpiredException.class);
    }

    /**
     * The waiter's client goes through the relay with every reply two seconds late, so that after its
     * pub/sub connection is killed in Redis it takes seconds to notice and subscribe again; the
     * release happens in that gap, its message reaching no one. The waiter must look again once it
     * is subscribed again, not sleep out the holder's 30 s lease.
     */
    @Test
    void waiterWokenAfterAPubSubReconnectWhenTheReleaseHappenedWhileItWasDown() throws Exception {
        LockClient waiterClient = throughRelay(LockClientOptions.builder());
        LockClient holderClient = direct(LockClientOptions.builder());
        String name = Names.fresh("resubscribe");
        String channel = key(name) + ":channel";
        LockOwner holder = owner("holder");
        LockOwner waiter = owner("waiter");
        holder.act(() -> {
            holderClient.getLock(name).lock(); // watchdog lease: 30 s
        });
        Future<Boolean> waiting = waiter.submit(() -> waiterClient.getLock(name).tryLock(Duration.ofSeconds(60)));
        await("waiter subscribed").atMost(Duration.ofSeconds(10)).until(() -> subscribers(channel) == 1);

        relay.delayReplies(Duration.ofSeconds(2));
        assertThat(observer.clientKill(io.lettuce.core.KillArgs.Builder.typePubsub()))
                .isPositive();
        assertThat(subscribers(channel))
                .as("no subscriber while the waiter reconnects")
                .isZero();
        long released = System.nanoTime();
        holder.act(() -> holderClient.getLock(name).unlock());
        assertThat(subscribers(channel))
                .as("the release's wake-up reached no one")
                .isZero();

        assertThat(waiting.get(40, TimeUnit.SECONDS)).isTrue();
        assertThat(since(released))
                .as("waiter got the lock after re-subscribing, not after the holder's 30 s lease")
                .isLessThan(Duration.ofSeconds(20));
        waiter.act(() -> waiterClient.getLock(name).unlock());
    }

    @Test
    void closeWakesEveryWaiterWithALockExceptionAndLaterCallsSayTheClientIsClosed() throws Exception {
        LockClient client = throughRelay(LockClientOptions.builder());
        LockClient holderClient = direct(LockClientOptions.builder());
        String busy = Names.fresh("busy");
        String otherBusy = Names.fresh("other-busy");
        String mine = Names.fresh("mine");
        String busyFair = Names.fresh("busy-fair");
        String busyWrite = Names.fresh("busy-write");
        LockOwner holder = owner("holder");
        holder.act(() -> {
            holderClient.getLock(busy).lock();
            holderClient.getLock(otherBusy).lock();
            holderClient.getFairLock(busyFair).lock();
            holderClient.getReadWriteLock(busyWrite).writeLock().lock();
        });
        LockOwner owning = owner("owning");
        owning.act(() -> client.getLock(mine).lock());
        Map<String, Callable<Boolean>> waits = Map.of(
                "lock()",
                        () -> {
                            client.getLock(busy).lock();
                            return true;
                        },
                "tryLock(60 s)", () -> client.getLock(busy).tryLock(Duration.ofSeconds(60)),
                "lockInterruptibly()",
                        () -> {
                            client.getLock(busy).lockInterruptibly();
                            return true;
                        },
                "tryLock(60 s) on another lock", () -> client.getLock(otherBusy).tryLock(Duration.ofSeconds(60)),
                "fair lock()",
                        () -> {
                            client.getFairLock(busyFair).lock();
                            return true;
                        },
                "read lock()",
                        () -> {
                            client.getReadWriteLock(busyWrite).readLock().lock();
                            return true;
                        });
        Map<String, Future<Boolean>> waiting = new java.util.HashMap<>();
        waits.forEach((what, call) -> waiting.put(what, owner(what).submit(call)));
        await("all six waiting")
                .atMost(Duration.ofSeconds(10))
                .until(() -> client.localWaiters() == 2
                        && subscribers(key(busy) + ":channel") == 1
                        && subscribers(key(otherBusy) + ":channel") == 1
                        && observer.llen(LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, busyFair)
                                        .queue())
                                == 1
                        && subscribers(key(busyWrite) + ":channel") == 1);

        long closing = System.nanoTime();
        client.close();
        for (Map.Entry<String, Future<Boolean>> w : waiting.entrySet()) {
            assertThatThrownBy(() -> w.getValue().get(10, TimeUnit.SECONDS))
                    .as(w.getKey())
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("closed");
        }
        assertThat(since(closing))
                .as("every waiter woke at once, not after the holder's 30 s lease")
                .isLessThan(Duration.ofSeconds(10));

        assertThatThrownBy(() -> client.getLock(busy).tryLock())
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> client.getLock(Names.fresh("new")).lock())
                .isInstanceOf(LockException.class)
                .hasMessageContaining("closed");
        assertThatThrownBy(() -> owning.act(() -> client.getLock(mine).unlock()))
                .as("a hold the closed client no longer renews was reported lost, and its unlock says so")
                .cause()
                .isInstanceOf(LockLeaseExpiredException.class)
                .hasMessageContaining("its client was closed while it was held");
    }

    @Test
    void aFixedLeaseShorterThanTheRoundTripFailsNamingItInsteadOfTryingForEver() throws Exception {
        LockClient client = throughRelay(LockClientOptions.builder());
        String name = Names.fresh("lease-under-round-trip");
        RedisLock lock = client.getLock(name);
        RedisLock other = client.getLock(name + ":async");
        relay.delayReplies(Duration.ofMillis(100)); // every grant of a 20 ms lease arrives after it ended

        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(30), Duration.ofMillis(20)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease of lock '" + name + "' (20 ms) had ended before Redis's grant reached")
                .hasMessageContaining("3 times in this wait")
                .hasMessageContaining("use a lease well above the round trip");
        assertThatThrownBy(() -> other.tryLockAsync(Duration.ofSeconds(30), Duration.ofMillis(20))
                        .toCompletableFuture()
                        .get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("3 times in this wait");

        relay.heal();
        assertThat(lock.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(5)))
                .as("the lease was the problem, not the lock: a usable lease takes it")
                .isTrue();
        lock.unlock();
    }

    private long subscribers(String channel) {
        return observer.pubsubNumsub(channel).getOrDefault(channel, 0L);
    }

    private LockClient throughRelay(LockClientOptions.Builder options) {
        LockClient client = LockClient.create(
                RedisURI.create(relay.uri()), options.listener(events).build());
        closeables.add(client);
        return client;
    }

    private LockClient direct(LockClientOptions.Builder options) {
        LockClient client = LockClient.create(RedisURI.create(redis.server().uri()), options.build());
        closeables.add(client);
        return client;
    }

    private LockOwner owner(String name) {
        LockOwner owner = new LockOwner(name);
        closeables.add(owner);
        return owner;
    }

    private static Duration since(long startNanos) {
        return Duration.ofNanos(System.nanoTime() - startNanos);
    }

    private static String key(String name) {
        return LockClientOptions.DEFAULT_KEY_PREFIX + "{" + name + "}";
    }
}
