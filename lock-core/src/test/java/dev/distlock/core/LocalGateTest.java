package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.Exclusion;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Threads of one client contend at a local gate, so only one of them at a time goes to Redis. */
@BehaviourTest
class LocalGateTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void withoutHandOffsContendingThreadsOfOneClientCostTwoScriptCallsPerLockAndUnlock() throws Exception {
        RedisServer server = redis.startAnother(); // its own server: the script counts are ours alone
        // Local hand-offs off: every hold is one acquire and one release (CohortingTest counts them with).
        try (LockClient client = LockClient.create(
                RedisURI.create(server.uri()),
                LockClientOptions.builder().localHandOffs(0, Duration.ZERO).build())) {
            RedisLock lock = client.getLock(Names.fresh("gate"));
            lock.lock(); // first call loads the script; counts start after it
            lock.unlock();
            long before = scriptCalls(server);
            Exclusion exclusion = new Exclusion();
            int threads = 8;
            int rounds = 50;
            List<OtherThread<Void>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(OtherThread.start(() -> {
                    for (int i = 0; i < rounds; i++) {
                        lock.lock();
                        try {
                            exclusion.pass();
                        } finally {
                            lock.unlock();
                        }
                    }
                    return null;
                }));
            }
            for (OtherThread<Void> worker : workers) {
                worker.get();
            }
            assertThat(exclusion.overlaps()).isZero();
            // one acquire and one release each: no failed attempts, no polling, no subscriptions
            assertThat(scriptCalls(server) - before).isEqualTo(2L * threads * rounds);
            await().atMost(Waits.GRANTED)
                    .untilAsserted(() -> assertThat(client.localGates()).isZero());
            assertThat(client.subscribedChannels()).isZero();
        }
    }

    @Test
    void anAbandonedHoldWithAnExplicitLeaseDoesNotBlockLocalThreadsLongerThanItsLease() throws Exception {
        try (LockClient client =
                LockClient.create(RedisURI.create(redis.server().uri()))) {
            RedisLock lock = client.getLock(Names.fresh("abandoned"));
            Duration lease = Duration.ofMillis(500); // short: it must run out, nothing asserts it held
            // a thread takes the lock for 500 ms and ends without unlocking
            OtherThread.call(() -> {
                lock.lock(lease);
                return null;
            });
            long start = System.nanoTime();
            assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
            // about the lease; a local gate that waited for the abandoned hold would take the whole wait
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(lease.plusSeconds(5));
            lock.unlock();
        }
    }

    @Test
    void aLostHoldDoesNotBlockLocalThreads() throws Exception {
        // The watchdog finds the loss at its next renewal, lease/3 on; a lease a loaded host cannot let lapse
        // before the force-unlock below finds it held.
        Duration watchdogLease = Duration.ofSeconds(2);
        LockClientOptions options =
                LockClientOptions.builder().watchdogLease(watchdogLease).build();
        try (LockClient client =
                        LockClient.create(RedisURI.create(redis.server().uri()), options);
                LockClient operator =
                        LockClient.create(RedisURI.create(redis.server().uri()))) {
            String name = Names.fresh("lost");
            RedisLock lock = client.getLock(name);
            OtherThread.call(() -> {
                lock.lock(); // watchdog hold, never unlocked: its thread ends
                return null;
            });
            assertThat(operator.getLock(name).forceUnlock()).isTrue(); // the watchdog will find it gone
            long start = System.nanoTime();
            assertThat(lock.tryLock(Waits.GRANTED)).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(watchdogLease.plusSeconds(5));
            lock.unlock();
        }
    }

    @Test
    void tryLockWithoutWaitFailsAtOnceWhileAnotherLocalThreadHolds() throws Exception {
        try (LockClient client =
                LockClient.create(RedisURI.create(redis.server().uri()))) {
            RedisLock lock = client.getLock(Names.fresh("busy"));
            lock.lock();
            try {
                assertThat(OtherThread.<Boolean>call(() -> lock.tryLock())).isFalse();
                assertThat(OtherThread.call(() -> lock.tryLock(Duration.ofMillis(200))))
                        .isFalse();
            } finally {
                lock.unlock();
            }
            assertThat(OtherThread.call(() -> {
                        boolean got = tryOnce(lock);
                        lock.unlock();
                        return got;
                    }))
                    .isTrue();
            await().atMost(Duration.ofSeconds(5)).until(() -> client.localGates() == 0);
        }
    }

    private static long scriptCalls(RedisServer server) {
        try (RedisProbe probe = RedisProbe.connect(server)) {
            return probe.scriptRuns();
        }
    }
}
