package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.Answered;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.Waits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a semaphore promises on every topology, across threads and two clients: never more holders than
 * permits, distinct tokens, waiters woken by releases, bounded waits, loss reported, the declared number
 * of permits enforced, bad input refused before Redis, async and cancel. Each topology's test says how
 * a client is opened.
 */
abstract class SemaphoreContract {

    private final RecordingListener events = new RecordingListener();
    LockClient client;
    LockClient otherClient;
    String name;

    @BeforeEach
    void setUp() {
        client = open(LockClientOptions.builder().listener(events).build());
        otherClient = open(LockClientOptions.defaults());
        name = Names.fresh("sem");
    }

    @AfterEach
    void tearDown() {
        client.close();
        otherClient.close();
    }

    @Test
    void threadsOfTwoClientsNeverHoldMorePermitsThanTheSemaphoreHas() throws Exception {
        int permits = 3;
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        ConcurrentLinkedQueue<Long> tokens = new ConcurrentLinkedQueue<>();
        List<OtherThread<Integer>> threads = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            RedisSemaphore semaphore = (t % 2 == 0 ? client : otherClient).getSemaphore(name, permits);
            threads.add(OtherThread.start(() -> {
                for (int i = 0; i < 20; i++) {
                    try (LockHandle permit = semaphore.acquire()) {
                        int now = inside.incrementAndGet();
                        most.accumulateAndGet(now, Math::max);
                        tokens.add(permit.fencingToken());
                        Thread.onSpinWait();
                        inside.decrementAndGet();
                    }
                }
                return 20;
            }));
        }
        for (OtherThread<Integer> thread : threads) {
            assertThat(thread.result.get(2, TimeUnit.MINUTES)).isEqualTo(20);
        }

        assertThat(most.get()).isBetween(1, permits);
        assertThat(tokens).hasSize(160).doesNotHaveDuplicates();
        assertThat(client.getSemaphore(name, permits).availablePermits()).isEqualTo(permits);
    }

    @Test
    void aWaiterIsWokenByAReleaseWhileTheHolderKeepsItsLease() throws Exception {
        // A holder on a watchdog lease longer than the wait: only the release's wake-up lets the waiter in in time.
        LockClient longLeases = open(
                LockClientOptions.builder().watchdogLease(Duration.ofMinutes(2)).build());
        RedisSemaphore semaphore = longLeases.getSemaphore(name, 2);
        LockHandle first = semaphore.acquire(2);
        OtherThread<Optional<LockHandle>> waiter =
                OtherThread.start(() -> otherClient.getSemaphore(name, 2).tryAcquire(1, Waits.GRANTED, null));
        await().atMost(Waits.GRANTED).until(() -> otherClient.subscribedChannels() > 0);

        first.unlock();

        Optional<LockHandle> granted = waiter.result.get(Waits.GRANTED.toSeconds() + 5, TimeUnit.SECONDS);
        assertThat(granted).isPresent();
        assertThat(granted.get().fencingToken()).isGreaterThan(first.fencingToken());
        granted.get().unlock();
        longLeases.close();
    }

    @Test
    void aWaitForPermitsThatStayTakenRunsOutEmpty() throws Exception {
        LockHandle all = client.getSemaphore(name, 2).acquire(2);

        // sent again when Redis did not answer within the wait (a stalled host): the outcome asserted is busy
        assertThat(Answered.call(
                        LockUnavailableException.class,
                        () -> otherClient.getSemaphore(name, 2).tryAcquire(1, Waits.RUNS_OUT, null)))
                .isEmpty();
        assertThat(Answered.call(
                        LockUnavailableException.class,
                        () -> otherClient.getSemaphore(name, 2).tryAcquire(Duration.ZERO)))
                .isEmpty();
        all.unlock();
    }

    @Test
    void severalPermitsAtOnceCountAsSeveral() throws Exception {
        RedisSemaphore semaphore = client.getSemaphore(name, 5);
        LockHandle three = semaphore.acquire(3);

        assertThat(semaphore.availablePermits()).isEqualTo(2);
        assertThat(semaphore.tryAcquire(3, Duration.ZERO, null)).isEmpty();
        Optional<LockHandle> two = semaphore.tryAcquire(2, Duration.ZERO, null);
        assertThat(two).isPresent();
        assertThat(semaphore.availablePermits()).isZero();
        three.unlock();
        two.get().unlock();
        assertThat(semaphore.availablePermits()).isEqualTo(5);
    }

    @Test
    void aPermitIsReleasedFromAnotherThreadExactlyOnce() throws Exception {
        LockHandle permit = client.getSemaphore(name, 1).acquire();

        OtherThread.start(() -> {
                    permit.unlock();
                    return true;
                })
                .get();

        assertThat(permit.isHeld()).isFalse();
        assertThatThrownBy(permit::unlock).isInstanceOf(IllegalStateException.class);
        assertThat(client.getSemaphore(name, 1).availablePermits()).isEqualTo(1);
    }

    @Test
    void aForceReleaseIsReportedToTheHolderAsALostLease() throws Exception {
        RedisSemaphore semaphore = client.getSemaphore(name, 2);
        LockHandle permit = semaphore.acquire();

        assertThat(otherClient.getSemaphore(name, 2).forceReleaseAll()).isTrue();
        semaphore.forceReleaseAll();

        assertThat(permit.leaseLost().toCompletableFuture().get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS))
                .isNotBlank();
        assertThat(permit.isHeld()).isFalse();
        assertThatThrownBy(permit::unlock).isInstanceOf(LockLeaseExpiredException.class);
        // listeners hear of the loss just after the handle does
        await().atMost(Waits.GRANTED)
                .untilAsserted(() -> assertThat(events.leaseLosses)
                        .anySatisfy(l -> assertThat(l.lock().type()).isEqualTo(LockType.SEMAPHORE)));
    }

    @Test
    void aHolderWithAFixedLeaseGivesItsPermitBackWhenTheLeaseEnds() throws Exception {
        RedisSemaphore semaphore = client.getSemaphore(name, 1);
        semaphore.tryAcquire(1, Duration.ZERO, Duration.ofMillis(300)).orElseThrow();

        Optional<LockHandle> next = otherClient.getSemaphore(name, 1).tryAcquire(1, Waits.GRANTED, null);

        assertThat(next).isPresent();
        next.get().unlock();
    }

    @Test
    void anotherNumberOfPermitsForTheSameKeyIsRefusedNamingBoth() throws Exception {
        LockHandle permit = client.getSemaphore(name, 3).acquire();

        assertThatThrownBy(() -> otherClient.getSemaphore(name, 5).tryAcquire(Waits.RUNS_OUT))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("has 3 permits")
                .hasMessageContaining("declared 5");
        permit.unlock();
    }

    @Test
    void badInputIsRefusedBeforeRedisIsAsked() {
        assertThatThrownBy(() -> client.getSemaphore(name, 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 1 permit");
        RedisSemaphore semaphore = client.getSemaphore(name, 3);
        assertThatThrownBy(() -> semaphore.acquire(4))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 to 3, got 4");
        assertThatThrownBy(() -> semaphore.tryAcquire(1, Duration.ofSeconds(-1), null))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> semaphore.tryAcquire(1, Duration.ZERO, Duration.ofMillis(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
        assertThatThrownBy(() -> client.getSemaphore(" ", 3)).isInstanceOf(LockNameException.class);
    }

    @Test
    void anAsyncWaitCancelledGivesEverythingUp() throws Exception {
        LockHandle all = client.getSemaphore(name, 1).acquire();
        CompletableFuture<Optional<LockHandle>> waiting = otherClient
                .getSemaphore(name, 1)
                .tryAcquireAsync(1, Waits.GRANTED, null)
                .toCompletableFuture();

        waiting.cancel(true);
        all.unlock();

        LockHandle again = otherClient
                .getSemaphore(name, 1)
                .acquireAsync(1)
                .toCompletableFuture()
                .get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
        assertThat(again.isHeld()).isTrue();
        again.unlock();
        assertThat(client.getSemaphore(name, 1).availablePermits()).isEqualTo(1);
    }

    /** A client on the topology under test. */
    abstract LockClient open(LockClientOptions options);
}
