package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.RedisSentinelSetup;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Fencing tokens across a Sentinel failover to a replica that lags: two clients churn grants on a
 * few names; the replica is cut off the master's stream (so it misses the last grants and their
 * counter increments), then the master is SIGKILLed and Sentinel promotes the lagging replica.
 * Every token granted after the failover must be larger than every token granted before it, no
 * release may fail with anything but the documented {@link LockUnavailableException} (whose
 * release goes on in the background), nothing may stay locked, and grants must flow again, to both
 * clients. How fast they flow is a benchmark's question, not this test's: it prints the rates only.
 */
@SlowTest
class SentinelFailoverTokenTest {

    /** Short, so locks whose release the promoted replica never saw free themselves quickly. */
    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(5);

    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final Duration FAILOVER_BOUND = Duration.ofSeconds(30);
    /** The grants the replica misses: the churn goes on this long with the replica cut off. */
    private static final Duration LAG = Duration.ofSeconds(1);
    /**
     * Grants each client must be given after the failover: enough that locking flows again, not one lucky
     * grant; a loaded machine reaches it in a second or two, and it has the failover bound to do so.
     */
    private static final int GRANTS_AFTER = 50;

    private static final int THREADS_PER_CLIENT = 4;

    private RedisSentinelSetup sentinel;
    private final List<RedisClient> redis = new ArrayList<>();
    private final List<LockClient> clients = new ArrayList<>();

    /**
     * One grant as its thread saw it: {@code requested} before the acquire call, {@code at} when it
     * returned. A reply the old master sent just before it died may still be read after the kill, so
     * only a grant requested after the kill surely came from the promoted replica, and only one that
     * returned before the kill began surely came from the old master.
     */
    private record Grant(String name, long token, long requested, long at, int client) {}

    /** An unlock that threw, with when its hold had been requested and its fencing token. */
    private record ReleaseFailure(Throwable error, long requested, long token) {}

    @BeforeEach
    void start() {
        sentinel = RedisSentinelSetup.start();
        for (int i = 0; i < 2; i++) {
            RedisURI.Builder uri = RedisURI.Builder.sentinel(
                    "127.0.0.1", sentinel.sentinelPorts().get(0), sentinel.masterName());
            sentinel.sentinelPorts().subList(1, 3).forEach(port -> uri.withSentinel("127.0.0.1", port));
            RedisClient client =
                    RedisClient.create(uri.withTimeout(Duration.ofSeconds(5)).build());
            redis.add(client);
            clients.add(LockClient.create(
                    client,
                    LockClientOptions.builder().watchdogLease(WATCHDOG_LEASE).build()));
        }
    }

    @AfterEach
    void stop() {
        clients.forEach(LockClient::close);
        redis.forEach(RedisClient::shutdown);
        if (sentinel != null) {
            sentinel.close();
        }
    }

    @Test
    void tokensGrantedAfterFailoverToALaggingReplicaExceedEveryEarlierTokenAndLockingRecovers() throws Exception {
        List<String> names = List.of(Names.fresh("fo-a"), Names.fresh("fo-b"), Names.fresh("fo-c"));
        ConcurrentLinkedQueue<Grant> grants = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> acquireFailures = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<ReleaseFailure> releaseFailures = new ConcurrentLinkedQueue<>();
        AtomicBoolean running = new AtomicBoolean(true);
        List<Thread> threads = new ArrayList<>();
        for (int c = 0; c < clients.size(); c++) {
            int client = c;
            for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                Thread thread = new Thread(
                        () -> churn(
                                client, clients.get(client), names, running, grants, acquireFailures, releaseFailures),
                        "failover-churn-" + client + "-" + t);
                thread.setDaemon(true);
                threads.add(thread);
            }
        }
        threads.forEach(Thread::start);

        long churnStart = System.nanoTime();
        await().atMost(WAIT).until(() -> grants.size() > 100 || !acquireFailures.isEmpty());
        double rateBefore = rate(grants, churnStart, System.nanoTime());

        sentinel.cutReplication();
        long cutAt = System.nanoTime();
        Thread.sleep(LAG.toMillis()); // grants made now never reach the replica
        long lag = sentinel.replicationLag();
        long killStart = System.nanoTime();
        int oldMaster = sentinel.killMaster();
        long killedAt = System.nanoTime();
        long killedAtMicros = TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());
        long missed = grants.stream()
                .filter(g -> g.requested() - cutAt > 0 && g.at() - killStart < 0)
                .count();
        assertThat(missed).as("grants the replica missed").isPositive();
        assertThat(lag).as("bytes of replication the replica missed").isPositive();

        RedisServer promoted = sentinel.awaitFailover(oldMaster, FAILOVER_BOUND);
        // locking recovers: every name is granted again, on the promoted replica
        await().atMost(FAILOVER_BOUND)
                .until(() -> names.stream()
                        .allMatch(n ->
                                grants.stream().anyMatch(g -> g.name().equals(n) && g.requested() - killedAt > 0)));
        long recoveredAt = System.nanoTime();
        // grants flow again, to each client (a client left on the dead master would get none): locks whose
        // release the replica missed free themselves within one watchdog lease, hence that much more time
        await("each client granted " + GRANTS_AFTER + " locks after the failover")
                .atMost(WATCHDOG_LEASE.plus(FAILOVER_BOUND))
                .until(() -> {
                    Map<Integer, Long> after = grantsAfter(grants, killedAt);
                    return after.size() == clients.size()
                            && after.values().stream().allMatch(n -> n >= GRANTS_AFTER);
                });
        long flowingAt = System.nanoTime();
        double rateAfter = rate(grants, recoveredAt, flowingAt);
        running.set(false);
        for (Thread thread : threads) {
            thread.join(TimeUnit.SECONDS.toMillis(20));
        }

        SoftAssertions softly = new SoftAssertions();
        for (String name : names) {
            long before = grants.stream()
                    .filter(g -> g.name().equals(name) && g.at() - killStart < 0)
                    .mapToLong(Grant::token)
                    .max()
                    .orElseThrow();
            List<Grant> after = grants.stream()
                    .filter(g -> g.name().equals(name) && g.requested() - killedAt > 0)
                    .toList();
            softly.assertThat(after)
                    .as(
                            "grants of %s after the failover whose token is not above %d, the largest before it",
                            name, before)
                    .isNotEmpty()
                    .allSatisfy(g -> assertThat(g.token()).isGreaterThan(before));
        }
        // An unlock may say Redis did not answer (the release then goes on in the background), or that a hold granted
        // by the old master was lost with it; nothing else, and no hold granted after the failover may be lost. A
        // hold requested after the kill may still stand on an old master's grant: one its client's holder passed
        // on in-process (lock cohorting, no round trip), with the next token of that grant's block. Tokens follow
        // the server's clock in microseconds (same host here), so the old master's all lie before the kill, and
        // the promoted one's after it: the 1 ms margin covers a block reserved just before the kill.
        softly.assertThat(releaseFailures)
                .as("unlocks that threw other than LockUnavailableException, or lost a hold the failover did not")
                .allMatch(f -> f.error() instanceof LockUnavailableException
                        || f.error() instanceof LockLeaseExpiredException
                                && (f.requested() - killedAt < 0 || f.token() < killedAtMicros + 1_000));
        softly.assertThat(acquireFailures)
                .as("acquires that failed other than LockUnavailableException while Redis was down")
                .allMatch(e -> e instanceof LockUnavailableException);
        softly.assertThat(threads).as("every churn thread ended").noneMatch(Thread::isAlive);
        // nothing stays locked: releases the promoted replica missed, and any given up, expire within one lease
        await().atMost(WATCHDOG_LEASE.plusSeconds(5)).untilAsserted(() -> {
            for (String name : names) {
                assertThat(promoted.command(
                                "EXISTS",
                                LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name)
                                        .lock()))
                        .as("%s still locked on the promoted replica", name)
                        .isEqualTo(":0");
            }
        });
        System.out.printf(
                "Failover: %d grants (%d missed by the replica, %d bytes behind), %.0f/s before, %.0f/s after"
                        + " (not asserted), recovered %d ms after the kill, %d grants per client %d ms after;"
                        + " unlock failures %s (%d of holds requested after the kill, on an old master's grant);"
                        + " acquire failures %s%n",
                grants.size(),
                missed,
                lag,
                rateBefore,
                rateAfter,
                TimeUnit.NANOSECONDS.toMillis(recoveredAt - killedAt),
                GRANTS_AFTER,
                TimeUnit.NANOSECONDS.toMillis(flowingAt - killedAt),
                count(releaseFailures.stream().map(ReleaseFailure::error).toList()),
                releaseFailures.stream()
                        .filter(f -> f.requested() - killedAt > 0 && f.token() < killedAtMicros + 1_000)
                        .count(),
                count(acquireFailures));
        softly.assertAll();
    }

    private static void churn(
            int clientIndex,
            LockClient client,
            List<String> names,
            AtomicBoolean running,
            ConcurrentLinkedQueue<Grant> grants,
            ConcurrentLinkedQueue<Throwable> acquireFailures,
            ConcurrentLinkedQueue<ReleaseFailure> releaseFailures) {
        while (running.get()) {
            RedisLock lock =
                    client.getLock(names.get(ThreadLocalRandom.current().nextInt(names.size())));
            long requested = System.nanoTime();
            try {
                if (!lock.tryLock(WAIT)) {
                    continue;
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                acquireFailures.add(e);
                continue;
            }
            long token = lock.currentFencingToken();
            try {
                grants.add(new Grant(lock.getKey(), token, requested, System.nanoTime(), clientIndex));
            } finally {
                try {
                    lock.unlock();
                } catch (RuntimeException e) {
                    releaseFailures.add(new ReleaseFailure(e, requested, token));
                }
            }
        }
    }

    /** Grants requested after {@code since}, by client; a client with none is absent. */
    private static Map<Integer, Long> grantsAfter(ConcurrentLinkedQueue<Grant> grants, long since) {
        return grants.stream()
                .filter(g -> g.requested() - since > 0)
                .collect(Collectors.groupingBy(Grant::client, Collectors.counting()));
    }

    private static double rate(ConcurrentLinkedQueue<Grant> grants, long from, long to) {
        long n = grants.stream()
                .filter(g -> g.at() - from >= 0 && g.at() - to < 0)
                .count();
        return n * 1e9 / (to - from);
    }

    /** Failures by type and the start of their message. */
    private static Map<String, Long> count(Collection<Throwable> failures) {
        return failures.stream()
                .collect(Collectors.groupingBy(
                        e -> e.getClass().getSimpleName() + ": "
                                + String.valueOf(e.getMessage())
                                        .substring(
                                                0,
                                                Math.min(
                                                        90,
                                                        String.valueOf(e.getMessage())
                                                                .length())),
                        Collectors.counting()));
    }
}
