package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.HighestTermStore;
import dev.distlock.core.testing.HighestTermStore.Write;
import dev.distlock.core.testing.LeaderProcess;
import dev.distlock.core.testing.LeaderWorker;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leader election across JVMs ({@link LeaderWorker}s), checked by a store outside the library that keeps
 * the highest term it accepted ({@link HighestTermStore}): a yielded or killed leader is replaced by
 * exactly one other, within the lease plus 2 s when killed, terms strictly growing; a paused leader
 * learns on resuming that it was deposed before it acts, and a write with its old term is refused.
 */
@SlowTest
class LeaderElectionAcrossProcessesTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final long LEASE_MS = 3000;

    @TempDir
    Path dir;

    private final String role = Names.fresh("leader-role");
    private final HighestTermStore store = new HighestTermStore(Names.fresh("store"));
    private final List<LeaderProcess> workers = new ArrayList<>();

    @AfterEach
    void killWorkers() {
        workers.forEach(LeaderProcess::close);
    }

    private void startWorkers(int n) throws Exception {
        for (int i = 0; i < n; i++) {
            workers.add(LeaderProcess.start(redis.server().uri(), role, LEASE_MS, store.key(), "w" + i, dir));
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> workers.stream().allMatch(LeaderProcess::ready));
    }

    /** The live workers that were granted more often than revoked: those that lead by their listener. */
    private List<LeaderProcess> leaders() {
        return workers.stream()
                .filter(LeaderProcess::isAlive)
                .filter(w -> w.grants().size() > w.linesStartingWith("REVOKED ").size())
                .toList();
    }

    private LeaderProcess awaitOneLeaderOtherThan(LeaderProcess previous) {
        await().atMost(Waits.GRANTED)
                .until(() -> leaders().size() == 1 && leaders().get(0) != previous);
        return leaders().get(0);
    }

    private static long lastTerm(LeaderProcess worker) {
        List<LeaderProcess.Grant> grants = worker.grants();
        return grants.get(grants.size() - 1).term();
    }

    private List<Write> history() {
        try (RedisProbe probe = RedisProbe.connect(redis.server())) {
            return store.history(probe.sync());
        }
    }

    private void awaitAcceptedWrite(LeaderProcess leader, long term) {
        await().atMost(Waits.GRANTED).until(() -> history().contains(new Write(true, term, leader.id)));
    }

    @Test
    void aYieldedThenKilledLeaderIsReplacedByExactlyOneOtherWithAGrowingTerm() throws Exception {
        startWorkers(3);
        LeaderProcess leader = awaitOneLeaderOtherThan(null);
        List<Long> terms = new ArrayList<>(List.of(lastTerm(leader)));
        awaitAcceptedWrite(leader, terms.get(0));

        leader.send("YIELD");
        LeaderProcess next = awaitOneLeaderOtherThan(leader);
        terms.add(lastTerm(next));
        awaitAcceptedWrite(next, terms.get(1));

        for (int round = 0; round < 2; round++) {
            LeaderProcess killed = next;
            killed.kill();
            long killedAt = System.currentTimeMillis();
            next = awaitOneLeaderOtherThan(killed);
            LeaderProcess.Grant grant = next.grants().get(next.grants().size() - 1);
            assertThat(grant.atMillis() - killedAt)
                    .as("new leader within the lease plus 2 s of the kill")
                    .isLessThanOrEqualTo(LEASE_MS + 2000);
            terms.add(grant.term());
            awaitAcceptedWrite(next, grant.term());
            // exactly one: the other live candidate goes on waiting
            assertThat(leaders()).containsExactly(next);
        }

        assertThat(terms).as("terms of the four leaderships").isSorted().doesNotHaveDuplicates();
        List<Write> history = history();
        assertThat(history).as("no write of a deposed leader reached the store").allMatch(Write::accepted);
        Map<Long, String> writerOfTerm = new HashMap<>();
        for (Write write : history) {
            assertThat(writerOfTerm.putIfAbsent(write.term(), write.writer()))
                    .as("term %d has one writer", write.term())
                    .isIn(null, write.writer());
        }
        assertThat(writerOfTerm.keySet()).containsExactlyInAnyOrderElementsOf(terms);
    }

    @Test
    void aPausedLeaderLearnsOnResumingThatItWasDeposedBeforeActingOnItsOldTerm() throws Exception {
        startWorkers(2);
        LeaderProcess paused = awaitOneLeaderOtherThan(null);
        long oldTerm = lastTerm(paused);
        awaitAcceptedWrite(paused, oldTerm);

        paused.signal(true);
        LeaderProcess next;
        try {
            await().atMost(Waits.GRANTED)
                    .until(() -> workers.stream()
                            .anyMatch(w -> w != paused && !w.grants().isEmpty()));
            next = workers.stream().filter(w -> w != paused).findFirst().orElseThrow();
            long newTerm = lastTerm(next);
            assertThat(newTerm).isGreaterThan(oldTerm);
            awaitAcceptedWrite(next, newTerm);
            // stopped for longer than a lease in all
            Thread.sleep(LEASE_MS);
        } finally {
            paused.signal(false);
        }

        await().atMost(Waits.GRANTED)
                .until(() ->
                        !paused.linesStartingWith("REVOKED " + oldTerm + " ").isEmpty());
        // the write loop's own thread reports when it runs again, which may come after the listener's call
        await().atMost(Waits.GRANTED).until(() -> !resumedAfterThePause(paused).isEmpty());
        List<String> resumed = resumedAfterThePause(paused);
        assertThat(resumed)
                .as("what its write loop saw first on resuming, before its next write")
                .singleElement()
                .satisfies(l -> assertThat(l).endsWith(" leader=false"));
        paused.send("PROBE");
        await().atMost(Waits.GRANTED)
                .until(() -> !paused.linesStartingWith("PROBE ").isEmpty());
        assertThat(paused.linesStartingWith("PROBE "))
                .containsExactly("PROBE leader=false term=" + oldTerm + " write=refused");
        assertThat(history().stream().filter(w -> !w.accepted()))
                .as("the store refused only the deposed leader's old term")
                .isNotEmpty()
                .allMatch(w -> w.term() == oldTerm && w.writer().equals(paused.id));
        assertThat(leaders()).containsExactly(next);
    }

    /** The RESUMED lines whose gap is at least a lease: the pause, not a busy host's hiccup. */
    private static List<String> resumedAfterThePause(LeaderProcess worker) {
        return worker.linesStartingWith("RESUMED ").stream()
                .filter(l -> Long.parseLong(l.split(" ")[1]) >= LEASE_MS)
                .toList();
    }
}
