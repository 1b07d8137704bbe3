package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.Contenders;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisClusterSetup;
import dev.distlock.testsupport.RedisClusterSetup.SlotMigration;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlotMove;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Resharding a real three-master Redis Cluster under load: the one slot that holds every lock of
 * the test moves between masters several times (IMPORTING/MIGRATING, keys in small batches, then
 * the new owner announced), while two clients churn locks, hold watchdog locks and wait on a
 * contended one. Clients meet MOVED, ASK and TRYAGAIN; none of it may surface as a failed call,
 * a broken exclusion, a false lease loss or a lock left behind.
 */
@SlowTest
class ClusterReshardingTest {

    /**
     * Renewed every 3 s, so the held locks are renewed several times during the moves. A renewal of a key
     * whose slot is moving waits for the move (TRYAGAIN), which on a loaded machine can take seconds (see
     * the operation timeout below): the lease leaves 6 s for that after a renewal period, where 6 s (4 s
     * after a renewal) ran out in Redis under a loaded CI host while its holder was alive.
     */
    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(9);
    /** Far beyond any wait the churn causes; a call that needs it has failed. */
    private static final Duration WAIT = Duration.ofSeconds(20);
    /** A released waiter must get the contended lock well before the holder's fixed lease would have freed it. */
    private static final Duration CONTENDED_LEASE = Duration.ofSeconds(25);

    private static final Duration PROMPT_HANDOVER = Duration.ofSeconds(5);
    private static final int MOVES = 6;
    private static final int THREADS_PER_CLIENT = 4;

    private RedisClusterSetup cluster;
    private RedisClusterClient redisA;
    private RedisClusterClient redisB;
    private LockClient clientA;
    private LockClient clientB;
    private final RecordingListener events = new RecordingListener();

    @BeforeEach
    void start() {
        cluster = RedisClusterSetup.start();
        List<RedisURI> seeds = cluster.uris().stream().map(RedisURI::create).toList();
        redisA = RedisClusterClient.create(seeds);
        redisB = RedisClusterClient.create(seeds);
        LockClientOptions options = LockClientOptions.builder()
                .watchdogLease(WATCHDOG_LEASE)
                .listener(events)
                // a move keeps the slot's keys split between two nodes (TRYAGAIN) for as long as it lasts, which on
                // a loaded machine can pass the default 5 s; a call failing then is the designed outcome (bounded,
                // said, retried in the background; ConnectionFaultTest checks that bound), not what is tested here
                .operationTimeout(WAIT)
                .build();
        clientA = LockClient.create(redisA, options);
        clientB = LockClient.create(redisB, options);
    }

    @AfterEach
    void stop() {
        Stream.of(clientA, clientB).filter(c -> c != null).forEach(LockClient::close);
        Stream.of(redisA, redisB).filter(c -> c != null).forEach(RedisClusterClient::shutdown);
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void locksStayExclusiveHeldAndReleasableWhileTheirSlotMovesBetweenMasters() throws Exception {
        List<String> names = namesInOneSlot(7);
        List<String> churned = names.subList(0, 4);
        String fair = churned.get(3);
        List<String> held = names.subList(4, 6);
        String contended = names.get(6);
        int slot = SlotHash.getSlot(key(contended));

        Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
        Map<String, AtomicLong> lastToken = new ConcurrentHashMap<>();
        names.forEach(n -> {
            inside.put(n, new AtomicInteger());
            lastToken.put(n, new AtomicLong());
        });
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger grants = new AtomicInteger();
        List<Thread> threads = new ArrayList<>();

        // churn: threads of both clients take the reentrant names in random order, and one thread of each the fair
        // lock,
        // whose keys may be split between the nodes for a moment (TRYAGAIN); a reentrant lock has only one key
        List<String> reentrant = churned.subList(0, 3);
        for (LockClient client : List.of(clientA, clientB)) {
            for (int t = 0; t < THREADS_PER_CLIENT; t++) {
                boolean onFair = t == 0;
                threads.add(thread("churn", () -> {
                    while (running.get()) {
                        String name = onFair
                                ? fair
                                : reentrant.get(ThreadLocalRandom.current().nextInt(reentrant.size()));
                        RedisLock lock = onFair ? client.getFairLock(name) : client.getLock(name);
                        if (!tryLock(lock, WAIT, null, failures)) {
                            continue;
                        }
                        try {
                            enter(name, lock, inside, lastToken, failures);
                            grants.incrementAndGet();
                            LockSupport.parkNanos(200_000); // the hold's work: long enough for an overlap to show
                            exit(name, inside);
                        } finally {
                            unlock(lock, failures);
                        }
                    }
                }));
            }
        }

        // long holds: taken before the first move, kept (and renewed) through all of them
        CountDownLatch heldTaken = new CountDownLatch(held.size());
        CountDownLatch letGo = new CountDownLatch(1);
        ConcurrentLinkedQueue<String> heldReport = new ConcurrentLinkedQueue<>();
        for (String name : held) {
            threads.add(thread("holder", () -> {
                RedisLock lock = clientA.getLock(name);
                if (!tryLock(lock, WAIT, null, failures)) {
                    return;
                }
                heldTaken.countDown();
                awaitUninterruptibly(letGo);
                if (!lock.isHeldByCurrentThread()) {
                    failures.add("held lock " + name + " no longer held by its thread after the moves");
                }
                heldReport.add(name);
                unlock(lock, failures);
            }));
        }

        // contended: a holder on A with a fixed lease, a waiter on B that must get it promptly after each release
        ConcurrentLinkedQueue<long[]> handovers = new ConcurrentLinkedQueue<>(); // {released, acquired}, nanoTime
        threads.add(thread("contended", () -> {
            RedisLock mine = clientA.getLock(contended);
            while (running.get()) {
                if (!tryLock(mine, WAIT, CONTENDED_LEASE, failures)) {
                    continue;
                }
                AtomicLong releasedAt = new AtomicLong();
                OtherThread<Long> waiter = OtherThread.start(() -> {
                    RedisLock theirs = clientB.getLock(contended);
                    if (!tryLock(theirs, WAIT, null, failures)) {
                        return -1L;
                    }
                    long at = System.nanoTime();
                    unlock(theirs, failures);
                    return at;
                });
                try {
                    Thread.sleep(300); // the hold's work; the waiter is meanwhile asleep in Redis's queue of waiters
                } catch (InterruptedException e) {
                    return;
                }
                releasedAt.set(System.nanoTime());
                unlock(mine, failures);
                try {
                    long acquired = waiter.get();
                    if (acquired < 0) {
                        failures.add("waiter on " + contended + " never got it after its release");
                    } else {
                        handovers.add(new long[] {releasedAt.get(), acquired});
                    }
                } catch (Exception e) {
                    failures.add("waiter on " + contended + " failed: " + e);
                }
            }
        }));

        threads.forEach(Thread::start);
        assertThat(heldTaken.await(WAIT.toSeconds(), TimeUnit.SECONDS))
                .as("held locks taken; failures: %s", failures)
                .isTrue();
        List<RedisServer> masters = cluster.nodes();
        List<SlotMigration> moves = new ArrayList<>();
        List<long[]> moveTimes = new ArrayList<>(); // {start, end}, nanoTime: the slot open, its keys split
        try {
            for (int move = 0; move < MOVES; move++) {
                int before = grants.get();
                // wait until the churn really runs against the slot's current owner before moving it again
                await().atMost(WAIT).until(() -> grants.get() > before + 20 || !failures.isEmpty());
                RedisServer target = nextMaster(cluster.ownerOf(slot));
                long moveStarted = System.nanoTime();
                moves.add(cluster.migrateSlot(slot, target, 2, Duration.ofMillis(60)));
                moveTimes.add(new long[] {moveStarted, System.nanoTime()});
                for (String name : held) {
                    assertThat(target.command("EXISTS", key(name)))
                            .as("held lock %s moved to port %s", name, target.port())
                            .isEqualTo(":1");
                }
            }
            int before = grants.get();
            await().atMost(WAIT).until(() -> grants.get() > before + 20 || !failures.isEmpty());
        } finally {
            running.set(false);
            letGo.countDown();
            for (Thread thread : threads) {
                thread.join(TimeUnit.SECONDS.toMillis(30));
            }
        }

        Map<String, Long> redirects = errorCounts(masters);
        // A release, and the waiter's next try, made while the slot is open can only complete once its move has (the
        // keys split between the nodes until then), and moves follow each other closely; so each hand-over is
        // bounded by the time outside the moves it overlapped. A lost wake-up would leave the waiter asleep for the
        // holder's whole fixed lease (25 s).
        List<Duration> handoverOutsideMoves = handovers.stream()
                .map(h -> Duration.ofNanos(h[1] - h[0] - overlap(h[0], h[1], moveTimes)))
                .toList();
        long longestMove = moveTimes.stream().mapToLong(m -> m[1] - m[0]).max().orElse(0);
        System.out.printf(
                "Resharding: %d moves (%s keys, %d in batches that met BUSYKEY, longest %d ms), %d grants, %d handovers"
                        + " (max %d ms, %d ms outside moves), errors answered: %s%n",
                moves.size(),
                moves.stream().map(m -> String.valueOf(m.keysMoved())).toList(),
                moves.stream().mapToInt(m -> m.replacedKeys().size()).sum(),
                TimeUnit.NANOSECONDS.toMillis(longestMove),
                grants.get(),
                handovers.size(),
                TimeUnit.NANOSECONDS.toMillis(
                        handovers.stream().mapToLong(h -> h[1] - h[0]).max().orElse(0)),
                handoverOutsideMoves.stream()
                        .mapToLong(Duration::toMillis)
                        .max()
                        .orElse(0),
                redirects);
        SoftAssertions softly = new SoftAssertions(); // every symptom of one run, not just the first
        // the clients really met the slot half moved, and in its old place
        softly.assertThat(redirects).as("redirects answered").containsKeys("ASK", "MOVED");
        softly.assertThat(threads).as("every thread ended").noneMatch(Thread::isAlive);
        softly.assertThat(failures)
                .as("lock/unlock failures or broken exclusion during %s moves (%s grants)", moves.size(), grants.get())
                .isEmpty();
        softly.assertThat(moves)
                .hasSize(MOVES)
                .allSatisfy(m -> assertThat(m.keysMoved()).isPositive());
        softly.assertThat(heldReport).as("held locks still held at the end").containsExactlyInAnyOrderElementsOf(held);
        softly.assertThat(events.leaseLosses).as("holds reported lost").isEmpty();
        for (String name : held) {
            // held through every move (several seconds), renewed every 2 s
            softly.assertThat(events.renewals(name, LockListener.RenewalOutcome.RENEWED))
                    .as("renewals of %s", name)
                    .hasSizeGreaterThan(1);
        }
        softly.assertThat(handoverOutsideMoves)
                .as(
                        "contended lock handed over to the waiter within %s of each release, not counting moves",
                        PROMPT_HANDOVER)
                .isNotEmpty()
                .allSatisfy(d -> assertThat(d).isLessThan(PROMPT_HANDOVER));
        for (String name : names) {
            softly.assertThat(cluster.nodeFor(key(name)).command("EXISTS", key(name)))
                    .as("%s left in Redis", name)
                    .isEqualTo(":0");
        }
        // besides the fencing counters (kept on purpose) and the release notes (which expire by themselves), nothing is
        // left, and nothing is stranded on a node that no longer owns the slot
        int owner = cluster.ownerOf(slot).port();
        for (RedisServer node : masters) {
            for (String key : node.query("KEYS", "lock:*").split("\n")) {
                if (key.isEmpty()) {
                    continue;
                }
                softly.assertThat(node.port()).as("port holding %s", key).isEqualTo(owner);
                if (node.port() == owner && !key.endsWith(":fence")) {
                    softly.assertThat(key).as("left on port %s", node.port()).contains(":released:");
                    // -2: it expired since KEYS listed it
                    softly.assertThat(node.command("PTTL", key))
                            .as("TTL of %s", key)
                            .doesNotStartWith(":-1");
                }
            }
        }
        softly.assertAll();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(
            value = LockType.class,
            names = {"REENTRANT", "FAIR", "READ", "WRITE"})
    void releaseWhileTheLockKeyIsStillOnTheMigratingNodeFreesItAndWakesAWaiterOfAnotherClient(LockType kind)
            throws Exception {
        String name = Names.fresh("migrating-" + kind.name().toLowerCase(java.util.Locale.ROOT));
        int slot = SlotHash.getSlot(key(name));
        RedisLock held = lock(clientA, kind, name);
        held.lock(Duration.ofSeconds(15)); // a waiter that misses the wake-up would sleep through this lease
        OtherThread<Long> waiter = OtherThread.start(() -> {
            RedisLock lock = lock(clientB, kind == LockType.READ ? LockType.WRITE : kind, name); // readers share
            if (!lock.tryLock(Duration.ofSeconds(10))) {
                return -1L;
            }
            long at = System.nanoTime();
            lock.unlock();
            return at;
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> clientB.subscribedChannels() == 1);
        RedisServer source = cluster.ownerOf(slot);
        SlotMove move = cluster.beginMigration(slot, nextMaster(source));
        // the slot is MIGRATING; the lock key is still on its old node, nothing else of this lock is. A script that
        // declares keys of which only some are on the node meets TRYAGAIN until the slot has moved, so the migration
        // completes half a second later, as a reshard would, while the release retries
        OtherThread<SlotMigration> finishing = OtherThread.start(() -> {
            Thread.sleep(500);
            return move.moveRemainingKeys(10, Duration.ZERO).finish();
        });

        Throwable unlockFailure = null;
        try {
            held.unlock();
        } catch (RuntimeException e) {
            unlockFailure = e;
        }
        long released = System.nanoTime();
        SlotMigration done = finishing.get();
        long acquired = waiter.get();

        SoftAssertions softly = new SoftAssertions();
        softly.assertThat(unlockFailure).as("unlock while the slot migrates").isNull();
        softly.assertThat(acquired)
                .as("the waiter of the other client got the lock")
                .isNotEqualTo(-1L);
        if (acquired != -1L) {
            softly.assertThat(Duration.ofNanos(acquired - released))
                    .as("from release to the waiter's grant")
                    .isLessThan(PROMPT_HANDOVER);
        }
        softly.assertThat(done.to().command("EXISTS", key(name)))
                .as("lock left in Redis")
                .isEqualTo(":0");
        softly.assertAll();
    }

    @Test
    void aFairLockWaiterRidesOutASlotMigrationLongerThanTheOperationTimeoutWithinItsWait() throws Exception {
        // a fair lock's script declares three keys, which exist together only while it has waiters: while its slot is
        // open, Redis refuses it with TRYAGAIN, on the old node and the new one alike
        try (LockClient quick = LockClient.create(
                redisA,
                LockClientOptions.builder()
                        .operationTimeout(Duration.ofSeconds(1))
                        .build())) {
            String name = Names.fresh("fair-open");
            int slot = SlotHash.getSlot(key(name));
            SlotMove move = cluster.beginMigration(slot, nextMaster(cluster.ownerOf(slot)));
            OtherThread<Boolean> waiter =
                    Contenders.takesAndReleases(() -> quick.getFairLock(name), Duration.ofSeconds(10));
            Thread.sleep(3000); // the slot stays open for longer than operationTimeout, as a slot with many keys does
            move.moveRemainingKeys(10, Duration.ZERO).finish();

            assertThat(waiter.failure())
                    .as("tryLock(10 s) while the slot was open for 3 s")
                    .isNull();
            assertThat(waiter.get()).as("granted once the slot moved").isTrue();
        }
    }

    @Test
    void grantsOnTheImportingNodeKeepTokensGrowingAndLeaveNothingHeld() throws Exception {
        String name = Names.fresh("importing");
        int slot = SlotHash.getSlot(key(name));
        List<Long> tokens = new ArrayList<>();
        RedisLock lock = clientA.getLock(name);
        RedisLock theirs = clientB.getLock(name);
        tokens.add(grantAndRelease(lock));

        SlotMove move = cluster.beginMigration(slot, nextMaster(cluster.ownerOf(slot)));
        // The free lock has no key on the old node, its fencing counter has: a grant there would be sent on to the
        // importing node, whose counter is not there yet. Every script declares its counter, so Redis answers
        // TRYAGAIN until the slot has moved (half a second later, as a reshard would) and the grants wait for it.
        OtherThread<Long> during = OtherThread.start(() -> grantAndRelease(lock));
        OtherThread<Long> theirsDuring = OtherThread.start(() -> grantAndRelease(theirs));
        Thread.sleep(500);
        SlotMigration done = move.moveRemainingKeys(10, Duration.ZERO).finish();
        List<Long> duringMove = new ArrayList<>(List.of(during.get(), theirsDuring.get()));
        java.util.Collections.sort(duringMove);
        tokens.addAll(duringMove);
        tokens.add(grantAndRelease(theirs));
        tokens.add(grantAndRelease(lock));

        assertThat(tokens)
                .as("tokens of successive grants across the move")
                .isSorted()
                .doesNotHaveDuplicates();
        assertThat(done.to().command("EXISTS", key(name))).isEqualTo(":0");
        // A key written on the importing node while the old node still has its own copy (an undeclared fencing counter
        // or release note) would make redis-cli --cluster reshard stop ("Found N key(s) in both source node and target
        // node having different values") unless run with --cluster-replace, which keeps the older copy.
        assertThat(done.replacedKeys())
                .as("keys written on both nodes while the slot moved")
                .isEmpty();
    }

    private long grantAndRelease(RedisLock lock) throws Exception {
        return OtherThread.call(() -> {
            assertThat(lock.tryLock(Waits.GRANTED)).as("granted").isTrue();
            long token = lock.currentFencingToken();
            lock.unlock();
            return token;
        });
    }

    private static RedisLock lock(LockClient client, LockType kind, String name) {
        return switch (kind) {
            case FAIR -> client.getFairLock(name);
            case READ -> client.getReadWriteLock(name).readLock();
            case WRITE -> client.getReadWriteLock(name).writeLock();
            default -> client.getLock(name);
        };
    }

    private RedisServer nextMaster(RedisServer node) {
        List<RedisServer> masters = cluster.nodes();
        return masters.get((masters.indexOf(node) + 1) % masters.size());
    }

    /** Error replies the masters gave, by their first word (MOVED, ASK, TRYAGAIN, ERR ...), from INFO errorstats. */
    private static Map<String, Long> errorCounts(List<RedisServer> masters) {
        Map<String, Long> counts = new java.util.TreeMap<>();
        for (RedisServer node : masters) {
            for (String line : node.query("INFO", "errorstats").split("\r?\n")) {
                if (line.startsWith("errorstat_")) {
                    String kind = line.substring("errorstat_".length(), line.indexOf(':'));
                    long count = Long.parseLong(line.substring(line.indexOf("count=") + "count=".length())
                            .trim());
                    counts.merge(kind, count, Long::sum);
                }
            }
        }
        return counts;
    }

    private static boolean tryLock(
            RedisLock lock, Duration wait, Duration lease, ConcurrentLinkedQueue<String> failures) {
        try {
            if (lock.tryLock(wait, lease)) {
                return true;
            }
            failures.add("tryLock(" + wait + ") of " + lock.getKey() + " not granted");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failures.add("tryLock of " + lock.getKey() + " threw " + e);
        }
        return false;
    }

    private static void unlock(RedisLock lock, ConcurrentLinkedQueue<String> failures) {
        try {
            lock.unlock();
        } catch (RuntimeException e) {
            failures.add("unlock of " + lock.getKey() + " threw " + e);
        }
    }

    private static void enter(
            String name,
            RedisLock lock,
            Map<String, AtomicInteger> inside,
            Map<String, AtomicLong> lastToken,
            ConcurrentLinkedQueue<String> failures) {
        if (inside.get(name).incrementAndGet() != 1) {
            failures.add("two holders of " + name + " at once");
        }
        long token = lock.currentFencingToken();
        long previous = lastToken.get(name).getAndSet(token);
        if (token <= previous) {
            failures.add("token of " + name + " went from " + previous + " to " + token);
        }
    }

    private static void exit(String name, Map<String, AtomicInteger> inside) {
        inside.get(name).decrementAndGet();
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // keep holding until told to let go
            }
        }
    }

    private static Thread thread(String role, Runnable body) {
        Thread thread = new Thread(body, "resharding-" + role);
        thread.setDaemon(true);
        return thread;
    }

    private static String key(String name) {
        return LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).lock();
    }

    /** Fresh names whose lock keys all hash to one slot, so one migration moves every lock of the test. */
    private static List<String> namesInOneSlot(int count) {
        String first = Names.fresh("reshard");
        int slot = SlotHash.getSlot(key(first));
        List<String> names = new ArrayList<>(List.of(first));
        for (int i = 0; names.size() < count; i++) {
            String candidate = first + "-" + i;
            if (SlotHash.getSlot(key(candidate)) == slot) {
                names.add(candidate);
            }
        }
        return names;
    }

    /** How much of [from, to] the intervals {start, end} (disjoint) cover. */
    private static long overlap(long from, long to, List<long[]> intervals) {
        long covered = 0;
        for (long[] interval : intervals) {
            long start = Math.max(from, interval[0]);
            long end = Math.min(to, interval[1]);
            if (end > start) {
                covered += end - start;
            }
        }
        return covered;
    }
}
