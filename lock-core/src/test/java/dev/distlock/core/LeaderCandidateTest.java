package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingLeaderListener;
import dev.distlock.core.testing.RedLockNodes;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * Leader election on one Redis: one candidate of a role leads, its term is the lock's fencing token, and
 * leadership passes on when the leader yields, closes, loses its lock, or cannot renew in time.
 */
@BehaviourTest
class LeaderCandidateTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final String role = Names.fresh("role");

    @AfterEach
    void tearDown() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    private LockClient client(RedisServer server, Duration lease) {
        return closeLater(LockClient.create(
                RedisURI.create(server.uri()),
                LockClientOptions.builder().watchdogLease(lease).build()));
    }

    private <T extends AutoCloseable> T closeLater(T closeable) {
        toClose.add(closeable);
        return closeable;
    }

    private LeaderCandidate started(LockClient client, RecordingLeaderListener listener) {
        LeaderCandidate candidate = closeLater(client.leader(role, listener));
        candidate.start();
        return candidate;
    }

    @Test
    void oneCandidateLeadsWithTheLocksTokenAsTermAndTheOtherTakesOverWhenItCloses() throws Exception {
        RecordingLeaderListener firstEvents = new RecordingLeaderListener();
        RecordingLeaderListener secondEvents = new RecordingLeaderListener();
        LeaderCandidate first = started(client(redis.server(), Duration.ofSeconds(30)), firstEvents);
        await().atMost(Waits.GRANTED)
                .until(() -> first.isLeader() && !firstEvents.grants().isEmpty());
        LeaderCandidate second = started(client(redis.server(), Duration.ofSeconds(30)), secondEvents);

        long term = firstEvents.lastTerm();
        assertThat(first.term()).hasValue(term);
        assertThat(firstEvents.grants().get(0).thread()).isEqualTo("distlock-leader-" + role);
        try (LockClient other = LockClient.create(RedisURI.create(redis.server().uri()))) {
            assertThat(other.getLock("leader:" + role).isLocked()).isTrue();
        }
        assertThat(second.isLeader()).isFalse();
        assertThat(second.term()).isEmpty();

        first.close();

        await().atMost(Waits.GRANTED)
                .until(() -> second.isLeader() && !secondEvents.grants().isEmpty());
        assertThat(secondEvents.lastTerm()).isGreaterThan(term);
        assertThat(first.isLeader()).isFalse();
        assertThat(firstEvents.revocations())
                .singleElement()
                .satisfies(r -> assertThat(r.term()).isEqualTo(term))
                .satisfies(r -> assertThat(r.reason()).isEqualTo("closed"));
        assertThatThrownBy(first::start)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(role)
                .hasMessageContaining("create a new one");
    }

    @Test
    void yieldingHandsLeadershipToAnotherCandidateAtOnce() {
        RecordingLeaderListener firstEvents = new RecordingLeaderListener();
        RecordingLeaderListener secondEvents = new RecordingLeaderListener();
        LeaderCandidate first = started(client(redis.server(), Duration.ofSeconds(30)), firstEvents);
        await().atMost(Waits.GRANTED)
                .until(() -> first.isLeader() && !firstEvents.grants().isEmpty());
        LeaderCandidate second = started(client(redis.server(), Duration.ofSeconds(30)), secondEvents);
        assertThat(second.yieldLeadership())
                .as("not the leader: nothing to yield")
                .isFalse();

        assertThat(first.yieldLeadership()).isTrue();

        // far sooner than the 30 s lease: the release woke the waiting candidate
        await().atMost(Waits.GRANTED)
                .until(() -> second.isLeader() && !secondEvents.grants().isEmpty());
        assertThat(secondEvents.lastTerm()).isGreaterThan(firstEvents.lastTerm());
        assertThat(firstEvents.revocations())
                .singleElement()
                .satisfies(r -> assertThat(r.reason()).isEqualTo("yielded"));
        // back in the election, but waiting: the other candidate leads
        await().during(LeaderCandidate.YIELD_BACK_OFF.multipliedBy(2))
                .atMost(Waits.GRANTED)
                .until(() -> !first.isLeader() && second.isLeader());
    }

    @Test
    void aLostLockIsRevokedAndTheCandidateLeadsAgainWithALargerTerm() {
        RecordingLeaderListener events = new RecordingLeaderListener();
        LeaderCandidate candidate = started(client(redis.server(), Duration.ofSeconds(3)), events);
        await().atMost(Waits.GRANTED)
                .until(() -> candidate.isLeader() && !events.grants().isEmpty());
        long term = events.lastTerm();

        try (LockClient operator =
                LockClient.create(RedisURI.create(redis.server().uri()))) {
            assertThat(operator.getLock("leader:" + role).forceUnlock()).isTrue();
        }

        await().atMost(Waits.GRANTED).until(() -> events.grants().size() == 2);
        assertThat(events.calls).hasSize(3);
        assertThat(events.revocations()).singleElement().satisfies(r -> {
            assertThat(r.term()).isEqualTo(term);
            // the renewal finds the lock gone; on a host too busy to get its answer within a renewal period,
            // the lease clock steps down first: either way, revoked once
            assertThat(r.reason())
                    .satisfiesAnyOf(
                            reason -> assertThat(reason).startsWith("lost: "),
                            reason -> assertThat(reason).contains("no renewal was confirmed"));
        });
        assertThat(events.lastTerm()).isGreaterThan(term);
        assertThat(candidate.term()).hasValue(events.lastTerm());
    }

    @Test
    void aLeaderWhoseRedisStopsAnsweringStepsDownBeforeItsLockCanExpire() {
        RedisServer server = redis.startAnother();
        Duration lease = Duration.ofSeconds(9);
        Duration period = lease.dividedBy(3);
        RecordingLeaderListener events = new RecordingLeaderListener();
        LeaderCandidate candidate = started(client(server, lease), events);
        await().atMost(Waits.GRANTED)
                .until(() -> candidate.isLeader() && !events.grants().isEmpty());
        long term = events.lastTerm();

        // paused before the first renewal (a period after the grant): the lock lives in Redis until the
        // grant plus the lease, and the leader steps down a period before that, by its own clock
        server.pause();
        long paused = System.nanoTime();
        try {
            await().atMost(Waits.GRANTED).until(() -> !events.revocations().isEmpty());
            RecordingLeaderListener.Call revoked = events.revocations().get(0);
            assertThat(Duration.ofNanos(revoked.nanos() - paused))
                    .as("stepped down a period before the lease ends, not when it ends")
                    .isLessThan(lease.minus(period.dividedBy(2)));
            assertThat(revoked.term()).isEqualTo(term);
            assertThat(revoked.reason()).contains("no renewal was confirmed");
            assertThat(candidate.isLeader()).isFalse();
            assertThat(candidate.term()).isEmpty();
        } finally {
            server.resume();
        }
        // Redis back: it competes again and leads with a new term once its old lock is gone
        await().atMost(Waits.GRANTED).until(() -> events.grants().size() == 2);
        assertThat(events.lastTerm()).isGreaterThan(term);
    }

    @Test
    void localModeElectsOneOfItsCandidates() {
        LockClient local = closeLater(LockClient.local(LockClientOptions.defaults()));
        RecordingLeaderListener firstEvents = new RecordingLeaderListener();
        RecordingLeaderListener secondEvents = new RecordingLeaderListener();
        LeaderCandidate first = started(local, firstEvents);
        await().atMost(Waits.GRANTED)
                .until(() -> first.isLeader() && !firstEvents.grants().isEmpty());
        LeaderCandidate second = started(local, secondEvents);
        assertThat(second.isLeader()).isFalse();

        first.yieldLeadership();

        await().atMost(Waits.GRANTED)
                .until(() -> second.isLeader() && !secondEvents.grants().isEmpty());
        assertThat(secondEvents.lastTerm()).isGreaterThan(firstEvents.lastTerm());
    }

    @Test
    void aBadRoleIsRefusedWithWhatToDo() {
        LockClient client = client(redis.server(), Duration.ofSeconds(30));
        assertThatThrownBy(() -> client.leader(" "))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be blank")
                .hasMessageContaining("billing-consumer");
        assertThatThrownBy(() -> client.leader(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("must not be null");
        assertThatThrownBy(() -> client.leader("a\u0000b")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> client.leader(role, null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("listener");
    }

    @Test
    void closingALeaderWhoseLockWasTakenAwayTellsTheListenerBeforeItReturns() {
        RecordingLeaderListener events = new RecordingLeaderListener();
        LeaderCandidate candidate = started(client(redis.server(), Duration.ofSeconds(30)), events);
        await().atMost(Waits.GRANTED)
                .until(() -> candidate.isLeader() && !events.grants().isEmpty());
        try (LockClient operator =
                LockClient.create(RedisURI.create(redis.server().uri()))) {
            assertThat(operator.getLock("leader:" + role).forceUnlock()).isTrue();
        }

        candidate.close(); // before the next renewal (10 s) notices: its release finds the lock gone

        assertThat(events.revocations())
                .singleElement()
                .satisfies(r -> assertThat(r.term()).isEqualTo(events.lastTerm()))
                .satisfies(r -> assertThat(r.reason()).isEqualTo("closed"));
        assertThat(candidate.isLeader()).isFalse();
    }

    @Test
    void aRedLockCandidateLeadsWithTheRedLocksTokenAsTermAndHandsOverWhenClosed() {
        RedLockNodes nodes = closeLater(new RedLockNodes(redis));
        RecordingLeaderListener firstEvents = new RecordingLeaderListener();
        RecordingLeaderListener secondEvents = new RecordingLeaderListener();
        LeaderCandidate first = closeLater(nodes.connect(3).leader(role, firstEvents));
        first.start();
        await().atMost(Waits.GRANTED)
                .until(() -> first.isLeader() && !firstEvents.grants().isEmpty());
        LeaderCandidate second = closeLater(nodes.connect(3).leader(role, secondEvents));
        second.start();
        assertThat(second.isLeader()).isFalse();

        first.close();

        await().atMost(Waits.GRANTED)
                .until(() -> second.isLeader() && !secondEvents.grants().isEmpty());
        assertThat(secondEvents.lastTerm()).isGreaterThan(firstEvents.lastTerm());
    }

    @Test
    void aCandidateWhoseRedisIsDownRetriesWithABoundedBackOffLogsOnceAndLeadsWhenRedisIsBack() {
        Logger logger = (Logger) LoggerFactory.getLogger("dev.distlock.core.internal.leader.Retries");
        ListAppender<ILoggingEvent> log = new ListAppender<>();
        Level level = logger.getLevel();
        logger.setLevel(Level.DEBUG);
        log.start();
        logger.addAppender(log);
        try {
            RedisServer server = redis.startAnother();
            LockClient client = closeLater(LockClient.create(
                    RedisURI.create(server.uri()),
                    LockClientOptions.builder()
                            .watchdogLease(Duration.ofSeconds(3))
                            .operationTimeout(Duration.ofMillis(300))
                            .build()));
            server.stop();
            RecordingLeaderListener events = new RecordingLeaderListener();
            LeaderCandidate candidate = started(client, events);

            // each attempt fails after the operation timeout; the back-off between them is at most a
            // renewal period (1 s), so several fail while one WARN says so
            await().atMost(Waits.GRANTED)
                    .until(() -> lines(log, Level.DEBUG, "failed").size() >= 3);
            assertThat(lines(log, Level.WARN, "cannot take part in the election"))
                    .singleElement()
                    .asString()
                    .contains(role)
                    .contains("at most 1000 ms apart");
            assertThat(candidate.isLeader()).isFalse();

            server.restart();

            await().atMost(Waits.GRANTED)
                    .until(() -> candidate.isLeader() && !events.grants().isEmpty());
            assertThat(lines(log, Level.INFO, "reached Redis again")).hasSize(1);
            assertThat(lines(log, Level.WARN, "")).hasSize(1);
            assertThat(events.grants()).hasSize(1);
        } finally {
            logger.detachAppender(log);
            logger.setLevel(level);
        }
    }

    private static List<String> lines(ListAppender<ILoggingEvent> log, Level level, String containing) {
        return log.list.stream()
                .filter(e -> e.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains(containing))
                .toList();
    }
}
