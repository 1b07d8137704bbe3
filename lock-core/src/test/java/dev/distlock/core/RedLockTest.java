package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RedLockNodes;
import dev.distlock.core.testing.RedisMonitor;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** RedLock over 3 and 5 real, independent Redis servers: grants, owners, failed nodes, fencing. */
@BehaviourTest
class RedLockTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private RedLockNodes nodes;

    @BeforeEach
    void startNodes() {
        nodes = new RedLockNodes(redis);
    }

    @AfterEach
    void closeClients() throws Exception {
        nodes.close();
    }

    @ParameterizedTest(name = "{0} nodes")
    @ValueSource(ints = {3, 5})
    void acquiresOnEveryNodeAndReleasesEverywhere(int n) throws Exception {
        RedisLock lock = nodes.connect(n).getLock(Names.fresh("basic"));

        assertThat(lock.tryLock(Waits.GRANTED)).isTrue();

        assertThat(lock.isHeldByCurrentThread()).isTrue();
        assertThat(lock.isLocked()).isTrue();
        assertThat(lock.remainingLease()).isPositive();
        for (int i = 0; i < n; i++) {
            assertThat(nodes.hasKey(i, lock.getKey()))
                    .as("node %d holds the key", i)
                    .isTrue();
        }
        lock.unlock();
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(lock.isLocked()).isFalse();
        // unlock returns once a majority released; the other nodes' releases land just after
        for (int i = 0; i < n; i++) {
            int node = i;
            await().atMost(Duration.ofSeconds(5)).until(() -> !nodes.hasKey(node, lock.getKey()));
        }
    }

    @ParameterizedTest(name = "{0} nodes")
    @ValueSource(ints = {3, 5})
    void reentersAndFreesOnlyAtTheLastUnlock(int n) throws Exception {
        RedisLock lock = nodes.connect(n).getLock(Names.fresh("reentry"));
        lock.lock();
        long token = lock.currentFencingToken();

        lock.lock();

        assertThat(lock.getHoldCount()).isEqualTo(2);
        assertThat(lock.currentFencingToken()).as("re-entry keeps the token").isEqualTo(token);
        lock.unlock();
        assertThat(lock.isLocked()).isTrue();
        assertThat(lock.getHoldCount()).isEqualTo(1);
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
    }

    @ParameterizedTest(name = "{0} nodes")
    @ValueSource(ints = {3, 5})
    void releasesOnlyForOwnerAndExcludesOtherThreadsAndClients(int n) throws Exception {
        RedisLock lock = nodes.connect(n).getLock(Names.fresh("owner"));
        RedisLock sameLockOtherClient = nodes.connect(n).getLock(lock.getKey());
        lock.lock();

        assertThat(OtherThread.<Boolean>call(() -> tryOnce(lock)))
                .as("another thread of the same client")
                .isFalse();
        assertThat(OtherThread.<Boolean>call(() -> tryOnce(sameLockOtherClient)))
                .as("another client")
                .isFalse();
        assertThat(tryOnce(sameLockOtherClient))
                .as("the same thread id through another client")
                .isFalse();
        assertThat(OtherThread.failure(() -> {
                    lock.unlock();
                    return null;
                }))
                .isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("only the owner can unlock");
        assertThatThrownBy(sameLockOtherClient::unlock).isInstanceOf(IllegalMonitorStateException.class);
        assertThat(lock.isHeldByCurrentThread()).isTrue();

        lock.unlock();
        assertThat(OtherThread.call(() -> sameLockOtherClient.tryLock(Duration.ofSeconds(2))))
                .isTrue();
    }

    @Test
    void waiterOfTheSameClientGetsTheLockSoonAfterRelease() throws Exception {
        RedisLock lock = nodes.connect(3).getLock(Names.fresh("wake"));
        lock.lock();
        // lock returns once a majority granted: node 0's grant may land just after
        await().atMost(Duration.ofSeconds(5)).until(() -> nodes.hasKey(0, lock.getKey()));
        try (RedisProbe node = RedisProbe.connect(nodes.server(0))) {
            long looksBefore = node.commandRuns("exists"); // acquire.lua's first look, once per attempt
            OtherThread<Boolean> waiter = OtherThread.start(() -> {
                boolean got = lock.tryLock(Duration.ofSeconds(10));
                lock.unlock();
                return got;
            });
            // it waits: an attempt of it found the lock taken, so the release below is what lets it in
            await().atMost(Duration.ofSeconds(5)).until(() -> node.commandRuns("exists") > looksBefore);
            assertThat(waiter.result).isNotDone();

            lock.unlock();

            assertThat(waiter.get()).isTrue();
        }
    }

    @ParameterizedTest(name = "{0} nodes")
    @ValueSource(ints = {3, 5})
    void acquiresWithOneNodeDown(int n) throws Exception {
        RedisLock lock = nodes.connect(n).getLock(Names.fresh("one-down"));
        nodes.server(0).stop();

        assertThat(lock.tryLock(Waits.GRANTED)).isTrue();

        assertThat(lock.isHeldByCurrentThread()).isTrue();
        // tryLock returns once a majority granted; a slower node's grant may land just after
        assertThat(java.util.stream.IntStream.range(1, n)
                        .filter(i -> nodes.hasKey(i, lock.getKey()))
                        .count())
                .as("a majority of the %d nodes, all of them up, hold the lock", n)
                .isGreaterThanOrEqualTo(n / 2 + 1);
        lock.unlock();
        // unlock returns once a majority released; the other nodes' releases land just after
        await().atMost(Duration.ofSeconds(5))
                .until(() -> java.util.stream.IntStream.range(1, n).noneMatch(i -> nodes.hasKey(i, lock.getKey())));
    }

    @Test
    void acquiresWithOneNodeDownWhenItsClientQueuesCommandsUntilTheNodeTimeout() throws Exception {
        RedisLock lock = nodes.closeLater(RedLockClient.of(nodes.nodeClients(3, false), LockClientOptions.defaults()))
                .getLock(Names.fresh("one-down-queued"));
        nodes.server(2).stop();

        long start = System.nanoTime();
        assertThat(lock.tryLock(Waits.GRANTED)).isTrue();

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(3));
        lock.unlock();
    }

    @ParameterizedTest(name = "{0} nodes")
    @ValueSource(ints = {3, 5})
    void failsFastNamingHowManyNodesAnsweredWhenAMajorityIsDown(int n) {
        RedisLock lock = nodes.connect(n).getLock(Names.fresh("majority-down"));
        int down = n / 2 + 1;
        for (int i = 0; i < down; i++) {
            nodes.server(i).stop();
        }

        long start = System.nanoTime();
        // A wait rides out silence until its end (RedLockOutageInsideWaitTest): a single round fails fast.
        assertThatThrownBy(() -> lock.tryLock(Duration.ZERO))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("only " + (n - down) + " of " + n + " Redis nodes answered")
                .hasMessageContaining("majority of " + (n / 2 + 1));

        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        assertThat(lock.isHeldByCurrentThread()).isFalse();
    }

    @Test
    void lockWithoutAWaitLimitFailsAfterOneOperationTimeoutOfSilenceFromAMajority() {
        // As a LockClient's lock(): it rides out silence for one operation timeout, then says so.
        Duration operationTimeout = Duration.ofSeconds(2);
        RedisLock lock = nodes.closeLater(RedLockClient.of(
                        nodes.nodeClients(5, false),
                        LockClientOptions.builder()
                                .operationTimeout(operationTimeout)
                                .build()))
                .getLock(Names.fresh("majority-down-queued"));
        for (int i = 0; i < 3; i++) {
            nodes.server(i).stop();
        }

        long start = System.nanoTime();
        assertThatThrownBy(lock::lock)
                .isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("only 2 of 5 Redis nodes answered");

        // each round ends within its per-node timeout (300 ms for the default lease) after the last began
        assertThat(Duration.ofNanos(System.nanoTime() - start))
                .isGreaterThanOrEqualTo(operationTimeout)
                .isLessThan(operationTimeout.plusSeconds(5));
    }

    @ParameterizedTest(name = "{0} nodes")
    @ValueSource(ints = {3, 5})
    void fencingTokensStrictlyIncreaseAcrossGrantsAndClients(int n) throws Exception {
        List<RedisLock> locks =
                List.of(nodes.connect(n).getLock("fenced"), nodes.connect(n).getLock("fenced"));
        List<Long> tokens = new ArrayList<>();

        for (int i = 0; i < 10; i++) {
            RedisLock lock = locks.get(i % 2);
            lock.lock();
            tokens.add(lock.currentFencingToken());
            lock.unlock();
        }

        assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void tokensStillIncreaseWhenTheNodeWithTheHighestCounterLeavesTheMajority() throws Exception {
        String name = Names.fresh("fence-skew");
        RedisLock lock = nodes.connect(3).getLock(name);
        // Node 0's counter runs far ahead of the others (say its clock was years ahead when the counter
        // was seeded). The first grant's majority is {0, 1}, the second's {1, 2}.
        nodes.server(0).command("SET", "lock:{" + name + "}:fence", "4000000000000000");
        nodes.server(2).stop();
        lock.lock();
        long first = lock.currentFencingToken();
        lock.unlock();
        nodes.server(2).restart();
        nodes.server(0).stop();

        await().atMost(Duration.ofSeconds(10))
                .pollInSameThread()
                .ignoreExceptions()
                .until(lock::tryLock); // once node 2 is reconnected
        long second = lock.currentFencingToken();
        lock.unlock();

        assertThat(first).isEqualTo(4000000000000001L);
        assertThat(second).isGreaterThan(first);
    }

    @Test
    void rejectsFewerThanThreeNodesSayingHowToFixIt() {
        List<LockClient> two = nodes.nodeClients(2, true);

        assertThatThrownBy(() -> RedLockClient.of(two.get(0), two.get(1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 3")
                .hasMessageContaining("got 2")
                .hasMessageContaining("add nodes");
        assertThatThrownBy(() -> RedLockClient.connect(nodes.uris(1), LockClientOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("got 1");
    }

    @Test
    void rejectsAServerListedTwiceBeforeConnecting() {
        List<RedisURI> three = nodes.uris(3);
        RedisURI second = three.get(1);
        RedisURI sameServerAgain = RedisURI.create(
                "redis://" + second.getHost().toUpperCase(java.util.Locale.ROOT) + ":" + second.getPort());
        List<RedisURI> repeated = List.of(three.get(0), second, three.get(2), sameServerAgain);

        assertThatThrownBy(() -> RedLockClient.connect(repeated, LockClientOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(second.getHost() + ":" + second.getPort() + " twice")
                .hasMessageContaining("distinct, independent Redis masters");
        assertThatThrownBy(() -> RedLockClient.of((LockClient[]) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("nodes must not be null");
        List<LockClient> clients = nodes.nodeClients(3, true);
        assertThatThrownBy(() -> RedLockClient.of(clients.get(0), null, clients.get(2)))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("nodes must not contain null");
    }

    @Test
    void rejectsOneServerReachedTwiceUnderAnotherDatabase() {
        List<RedisURI> three = nodes.uris(3);
        RedisURI second = three.get(1);
        RedisURI sameServerOtherDatabase =
                RedisURI.create("redis://" + second.getHost() + ":" + second.getPort() + "/1");
        List<RedisURI> repeated = List.of(three.get(0), second, three.get(2), sameServerOtherDatabase);

        assertThatThrownBy(() -> RedLockClient.connect(repeated, LockClientOptions.defaults()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(second.getHost() + ":" + second.getPort() + " and ")
                .hasMessageContaining(second.getPort() + " database 1 are one Redis server")
                .hasMessageContaining("distinct, independent Redis masters");
    }

    @Test
    void rejectsTwoClientsOfOneServer() {
        List<LockClient> clients = nodes.nodeClients(3, true);
        RedisClient again = RedisClient.create(RedisURI.create(nodes.server(0).uri()));
        try {
            LockClient sameServerOtherPrefix = LockClient.create(
                    again, LockClientOptions.builder().keyPrefix("other:").build());
            try {
                assertThatThrownBy(() ->
                                RedLockClient.of(clients.get(0), clients.get(1), clients.get(2), sameServerOtherPrefix))
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("node 1 and node 4 are one Redis server")
                        .hasMessageContaining("run_id");
            } finally {
                sameServerOtherPrefix.close();
            }
        } finally {
            ClientShutdown.shutdown(again);
        }
        // three servers: accepted
        RedLockClient distinct = nodes.closeLater(RedLockClient.of(clients, LockClientOptions.defaults()));
        assertThat(tryOnce(distinct.getLock(Names.fresh("distinct")))).isTrue();
    }

    /**
     * An async RedLock wait spends most of its time in the back-off between rounds, on the client's timer.
     * Closing the client drops that timer's tasks; the wait must still end, with an error that says why.
     * Before, its future stayed pending for ever, past its own wait time.
     */
    @Test
    void closingTheClientEndsAnAsyncWaitBetweenRounds() throws Exception {
        String name = Names.fresh("closed-while-waiting");
        RedisLock holder = nodes.connect(3).getLock(name);
        holder.lock();
        RedLockClient waiting = RedLockClient.connect(nodes.uris(3), LockClientOptions.defaults());
        try (RedisProbe node = RedisProbe.connect(nodes.server(0))) {
            long before = node.scriptRuns();
            java.util.concurrent.CompletableFuture<?> wait =
                    waiting.getLock(name).tryLockAsync(Duration.ofSeconds(60)).toCompletableFuture();
            // a few rounds, each found busy: it now waits out a back-off most of the time
            await().atMost(Duration.ofSeconds(10)).until(() -> node.scriptRuns() - before >= 6);

            waiting.close();

            assertThatThrownBy(() -> wait.get(10, java.util.concurrent.TimeUnit.SECONDS))
                    .isInstanceOf(java.util.concurrent.ExecutionException.class)
                    .cause()
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("closed");
        }
        holder.unlock();
    }

    @Test
    void conditionsAreNotSupported() {
        RedisLock lock = nodes.connect(3).getLock(Names.fresh("condition"));

        assertThatThrownBy(lock::newCondition).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void forceUnlockDeletesTheLockOnEveryNode() throws Exception {
        RedisLock lock = nodes.connect(3).getLock(Names.fresh("force"));
        lock.lock();

        assertThat(OtherThread.<Boolean>call(() -> lock.forceUnlock())).isTrue();

        await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
        await().atMost(Duration.ofSeconds(5)).until(() -> !nodes.hasKey(0, lock.getKey()));
    }

    /**
     * An acquisition that needs several rounds asks each node under a grant id of its own per round,
     * so the give-back of a refused round, however late it lands (retried in the background while a
     * node restarts), names only that round's grant and never frees a later round's.
     */
    @Test
    void aRefusedRoundsGiveBackLandingLateFreesNothingOfTheNextRound() throws Exception {
        String name = Names.fresh("rounds");
        RedisLock lock = nodes.connect(3).getLock(name);
        lock.lock(); // loads the scripts on every node: MONITOR then sees EVALSHA only
        lock.unlock();
        // Nodes 1 and 2 held by another owner: a round gets node 0 alone, is refused, and gives it back.
        RedisLock onNode1 = nodes.closeLater(
                        LockClient.create(RedisURI.create(nodes.server(1).uri())))
                .getLock(name);
        RedisLock onNode2 = nodes.closeLater(
                        LockClient.create(RedisURI.create(nodes.server(2).uri())))
                .getLock(name);
        onNode1.lock();
        onNode2.lock();

        LockHandle handle;
        List<RedisMonitor.Command> seen;
        try (RedisMonitor monitor = RedisMonitor.start(nodes.server(0));
                RedisProbe node0 = RedisProbe.connect(nodes.server(0))) {
            CompletableFuture<java.util.Optional<LockHandle>> waiting =
                    lock.tryLockAsync(Duration.ofSeconds(20)).toCompletableFuture();
            // Round 1 granted on node 0 and was refused by the others: its give-back reached node 0.
            seen = new java.util.ArrayList<>(monitor.commandsUntil(LockScript.RELEASE.sha1()));
            onNode1.unlock();
            onNode2.unlock();
            handle = waiting.get(20, TimeUnit.SECONDS).orElseThrow();
            // A majority suffices for the grant: node 0's own acquire may land just after it.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> nodes.hasKey(0, name));
            node0.sync().echo("end-of-rounds");
            seen.addAll(monitor.commandsUntil("end-of-rounds"));

            List<List<String>> acquires = scriptCalls(seen, LockScript.ACQUIRE.sha1());
            List<List<String>> releases = scriptCalls(seen, LockScript.RELEASE.sha1());
            assertThat(acquires).as("round 1 and the granted round").hasSizeGreaterThanOrEqualTo(2);
            List<String> grantIds = acquires.stream().map(w -> argv(w, 5)).toList();
            assertThat(grantIds).as("a grant id per round").doesNotHaveDuplicates();
            List<String> refused = releases.get(0);
            assertThat(argv(refused, 2))
                    .as("the give-back names round 1's grant")
                    .isEqualTo(grantIds.get(0));

            // The same give-back once more, as a background retry landing after the granted round.
            node0.sync()
                    .evalsha(
                            refused.get(1),
                            ScriptOutputType.INTEGER,
                            keys(refused).toArray(String[]::new),
                            argvs(refused).toArray(String[]::new));
        }

        assertThat(nodes.hasKey(0, name))
                .as("node 0 still granted to the later round")
                .isTrue();
        assertThat(handle.isHeld()).isTrue();
        assertThat(tryOnce(onNode1)).as("the RedLock still holds a majority").isFalse();
        handle.unlock();
        // unlock returns once a majority released; node 0's release may land just after
        await().atMost(Duration.ofSeconds(5)).until(() -> !nodes.hasKey(0, name));
    }

    /** The words of the EVALSHA calls of {@code sha} sent by clients (not scripts). */
    private static List<List<String>> scriptCalls(List<RedisMonitor.Command> commands, String sha) {
        return commands.stream()
                .filter(c -> !c.fromScript())
                .map(RedisMonitor.Command::words)
                .filter(w -> w.size() > 2
                        && w.get(0).equalsIgnoreCase("EVALSHA")
                        && w.get(1).equals(sha))
                .toList();
    }

    private static List<String> keys(List<String> evalsha) {
        int n = Integer.parseInt(evalsha.get(2));
        return evalsha.subList(3, 3 + n);
    }

    private static List<String> argvs(List<String> evalsha) {
        int n = Integer.parseInt(evalsha.get(2));
        return evalsha.subList(3 + n, evalsha.size());
    }

    /** ARGV[i] (1-based, as in the script) of an EVALSHA call. */
    private static String argv(List<String> evalsha, int i) {
        return argvs(evalsha).get(i - 1);
    }
}
