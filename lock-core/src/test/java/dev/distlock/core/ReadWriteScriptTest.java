package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.testsupport.Waits;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rw-*.lua scripts run directly against a real Redis: sharing, exclusion, downgrade, the upgrade
 * guard, per-hold leases and the hash TTL, owner and grant checks, wake-ups, fencing tokens, and
 * every call sent twice (a reply lost, the command re-sent) counting once.
 */
class ReadWriteScriptTest extends ScriptTestSupport {

    ReadWriteScriptTest() {
        super("rw-script");
    }

    private static final long LEASE = 10_000;

    @Test
    void readersShareAndEachNewReadHoldGetsAFreshToken() throws Exception {
        List<Object> a = read(A, LEASE);
        List<Object> b = read(B, LEASE);

        assertThat(a.subList(0, 1)).containsExactly(1L);
        assertThat(b.get(0)).isEqualTo(1L);
        assertThat((Long) b.get(1)).isGreaterThan((Long) a.get(1));
        assertThat(sync.hget(keys.lock(), "mode")).isEqualTo("read");
        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("1");
        assertThat(sync.hget(keys.lock(), "r:" + B)).isEqualTo("1");
    }

    @Test
    void readReentryCountsUpAndKeepsTheToken() throws Exception {
        List<Object> first = read(A, LEASE);
        List<Object> again = read(A, LEASE, 1, grantOf("r", A));

        assertThat(again).containsExactly(1L, first.get(1), 2L);
        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("2");
    }

    @Test
    void writerIsRefusedWhileReadersHoldAndToldTheLongestReaderLease() throws Exception {
        read(A, 2_000);
        read(B, LEASE);

        List<Object> reply = write(C, LEASE);

        assertThat(reply.get(0)).isEqualTo(0L);
        assertThat((Long) reply.get(1)).isBetween(LEASE - 1_000, LEASE);
        assertThat(sync.hexists(keys.lock(), "w:" + C)).isFalse();
    }

    @Test
    void readerAndWriterAreRefusedWhileAnotherOwnerWritesAndToldTheWritersLease() throws Exception {
        write(A, 3_000);

        List<Object> reader = read(B, LEASE);
        List<Object> writer = write(C, LEASE);

        assertThat(reader.get(0)).isEqualTo(0L);
        assertThat((Long) reader.get(1)).isBetween(1L, 3_000L);
        assertThat(writer.get(0)).isEqualTo(0L);
        assertThat(sync.hget(keys.lock(), "mode")).isEqualTo("write");
        assertThat(sync.hexists(keys.lock(), "r:" + B)).isFalse();
    }

    @Test
    void writeReentryKeepsTheTokenAndTheWriterMayAlsoRead() throws Exception {
        List<Object> first = write(A, LEASE);
        assertThat(write(A, LEASE, 1, grantOf("w", A))).containsExactly(1L, first.get(1), 2L);

        List<Object> downgrade = read(A, LEASE);

        assertThat(downgrade.get(0)).isEqualTo(1L);
        assertThat((Long) downgrade.get(1)).isGreaterThan((Long) first.get(1));
        assertThat(sync.hget(keys.lock(), "mode")).isEqualTo("write");
    }

    @Test
    void readHolderAskingForTheWriteLockIsRefusedWithMinusOne() throws Exception {
        read(A, LEASE);

        assertThat(write(A, LEASE)).containsExactly(-1L, 0L, 0L);
        assertThat(sync.hexists(keys.lock(), "w:" + A)).isFalse();
        assertThat(sync.hget(keys.lock(), "mode")).isEqualTo("read");
    }

    private static final long MARK_MS = 2_000;

    @Test
    void aWriterThatWaitsHoldsNewReadersBackButNotTheReadersInside() throws Exception {
        read(A, LEASE);

        List<Object> writer = write(C, LEASE, 0, grantOf("w", C), 60_000);

        assertThat(writer.get(0)).isEqualTo(0L);
        assertThat((Long) writer.get(1)).as("looks again within half its mark").isBetween(1L, MARK_MS / 2);
        assertThat(Long.parseLong(sync.hget(keys.writers(), C))).isGreaterThan(0L);
        assertThat(sync.pttl(keys.writers())).isBetween(1L, MARK_MS);
        List<Object> newReader = read(B, LEASE);
        assertThat(newReader.get(0)).isEqualTo(0L);
        assertThat((Long) newReader.get(1)).as("until the mark ends").isBetween(1L, MARK_MS);
        assertThat(sync.hexists(keys.lock(), "r:" + B)).isFalse();
        assertThat(read(A, LEASE, 1, grantOf("r", A))).as("re-entry").startsWith(1L);

        assertThat(release("r", A, grantOf("r", A), 2, "m", NOTE_TTL_MS)).isEqualTo(0L);
        assertThat(release("r", A, "m")).isEqualTo(1L);
        assertThat(write(C, LEASE, 0, grantOf("w", C), 60_000).get(0)).isEqualTo(1L);
        assertThat(sync.exists(keys.writers())).as("the grant ends the mark").isZero();
    }

    @Test
    void aSingleWriteAttemptMarksNothing() throws Exception {
        read(A, LEASE);

        assertThat(write(C, LEASE).get(0)).isEqualTo(0L);

        assertThat(sync.exists(keys.writers())).isZero();
        assertThat(read(B, LEASE).get(0)).isEqualTo(1L);
    }

    @Test
    void aMarkThatRanOutHoldsNobodyBackAndIsDropped() throws Exception {
        read(A, LEASE);
        // A wait shorter than the mark bounds it; as long as a wait that runs out, so that the next call,
        // however late a loaded host sends it, still finds the mark.
        write(C, LEASE, 0, grantOf("w", C), Waits.RUNS_OUT.toMillis());
        assertThat(read(B, LEASE).get(0)).isEqualTo(0L);

        await().atMost(Waits.GRANTED).until(() -> read(B, LEASE).get(0).equals(1L));

        assertThat(sync.hexists(keys.writers(), C)).isFalse();
    }

    @Test
    void aWriterThatGivesUpLetsReadersInAndWakesThemOnce() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        read(A, LEASE);
        write(C, LEASE, 0, grantOf("w", C), 60_000);
        write(D, LEASE, 0, grantOf("w", D), 60_000);

        assertThat(writerLeaves(C, grantOf("w", C), "left")).isEqualTo(1L);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("left");
        assertThat(read(B, LEASE).get(0)).as("another writer still waits").isEqualTo(0L);
        assertThat(writerLeaves(D, grantOf("w", D), "left")).isEqualTo(1L);
        assertThat(writerLeaves(D, grantOf("w", D), "again"))
                .as("the same give-up run twice")
                .isZero();

        assertThat(read(B, LEASE).get(0)).isEqualTo(1L);
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("left");
        assertThat(messages.poll(200, TimeUnit.MILLISECONDS)).isNull();
    }

    /**
     * A writer's give-up sent again after its reply was lost runs after the same writer started a new wait: the
     * new wait's mark stays and keeps holding new readers back.
     */
    @Test
    void aGiveUpSentAgainLeavesTheMarkOfTheWritersNextWait() throws Exception {
        read(A, LEASE);
        write(C, LEASE, 0, "w-first-wait", 60_000);
        assertThat(writerLeaves(C, "w-first-wait", "left")).isEqualTo(1L);

        write(C, LEASE, 0, "w-next-wait", 60_000);
        assertThat(writerLeaves(C, "w-first-wait", "left"))
                .as("the first give-up, sent again")
                .isZero();

        assertThat(sync.hexists(keys.writers(), C)).as("the next wait's mark").isTrue();
        assertThat(read(B, LEASE).get(0)).as("a new reader is still held back").isEqualTo(0L);
        assertThat(writerLeaves(C, "w-next-wait", "left"))
                .as("the next wait's own give-up")
                .isEqualTo(1L);
        assertThat(read(B, LEASE).get(0)).isEqualTo(1L);
    }

    @Test
    void aWriteAttemptSentTwiceMarksOnce() throws Exception {
        read(A, LEASE);
        write(C, LEASE, 0, grantOf("w", C), 60_000);
        write(C, LEASE, 0, grantOf("w", C), 60_000);

        assertThat(sync.hlen(keys.writers())).isOne();
        assertThat(release("r", A, "m")).isEqualTo(1L);
        assertThat(write(C, LEASE, 0, grantOf("w", C), 60_000).get(0)).isEqualTo(1L);
        assertThat(write(C, LEASE, 0, grantOf("w", C), 60_000))
                .as("the grant sent again")
                .startsWith(1L);
        assertThat(sync.exists(keys.writers())).isZero();
    }

    @Test
    void releasingTheWriteHoldWithReadHoldsLeftTurnsToReadModeAndPublishes() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        write(A, LEASE);
        read(A, LEASE);

        assertThat(release("w", A, "wake:all")).isEqualTo(1L);

        assertThat(sync.hget(keys.lock(), "mode")).isEqualTo("read");
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("wake:all");
        assertThat(read(B, LEASE).get(0)).isEqualTo(1L);
    }

    @Test
    void lastReadReleaseDeletesTheLockAndPublishesButAnEarlierOneStaysQuiet() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        read(A, LEASE);
        read(B, LEASE);

        assertThat(release("r", A, "first")).isEqualTo(1L);
        assertThat(sync.exists(keys.lock())).isOne();
        assertThat(release("r", B, "last")).isEqualTo(1L);

        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("last");
        assertThat(messages).isEmpty();
    }

    @Test
    void releaseOfAReentrantReadHoldCountsDown() throws Exception {
        read(A, LEASE);
        read(A, LEASE, 1, grantOf("r", A));

        assertThat(release("r", A, grantOf("r", A), 2, "m", NOTE_TTL_MS)).isZero();
        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("1");
    }

    @Test
    void onlyTheOwnerOfAHoldOfThatKindCanReleaseIt() throws Exception {
        read(A, LEASE);
        long ttl = sync.pttl(keys.lock());

        assertThat(release("r", B, "m")).isEqualTo(-1L);
        assertThat(release("w", A, "m")).isEqualTo(-1L);

        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("1");
        assertThat(sync.pttl(keys.lock())).isBetween(1L, ttl);
    }

    @Test
    void releasingOrRenewingAFreeLockCreatesNothing() throws Exception {
        assertThat(release("r", A, "m")).isEqualTo(-1L);
        assertThat(rwRenew("r", A, LEASE)).isZero();

        assertThat(sync.exists(keys.lock())).isZero();
    }

    @Test
    void hashTtlIsTheLongestReaderLeaseAndShrinksWhenThatReaderLeaves() throws Exception {
        read(A, LEASE);
        read(B, 2_000);
        assertThat(sync.pttl(keys.lock())).isBetween(LEASE - 1_000, LEASE);

        release("r", A, "m");

        assertThat(sync.pttl(keys.lock())).isBetween(1L, 2_000L);
    }

    @Test
    void anExpiredReaderIsDroppedWhileAnotherKeepsRenewing() throws Exception {
        read(A, 150);
        read(B, 1_000);

        await().atMost(Duration.ofSeconds(5)).until(() -> {
            assertThat(rwRenew("r", B, 1_000)).isOne();
            return !sync.hexists(keys.lock(), "r:" + A);
        });

        assertThat(sync.hexists(keys.lock(), "rd:" + A)).isFalse();
        assertThat(release("r", A, "m")).isEqualTo(-1L);
        assertThat(release("r", B, "m")).isOne();
        assertThat(sync.exists(keys.lock())).isZero();
    }

    @Test
    void readReentryAfterTheReadHoldRanOutIsAFreshHoldWithANewToken() throws Exception {
        long first = (Long) read(A, 150, 0, grantOf("r", A)).get(1);
        read(B, LEASE);
        long end = Long.parseLong(sync.hget(keys.lock(), "rd:" + A));
        await().atMost(Duration.ofSeconds(5)).until(() -> serverMillis() > end);

        List<Object> reply = read(A, LEASE, 1, grantOf("r", A));

        assertThat(reply.get(0)).isEqualTo(1L);
        assertThat((Long) reply.get(1)).isGreaterThan(first);
        assertThat(reply.get(2)).isEqualTo(1L);
        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("1");
    }

    @Test
    void writeReentryAfterTheWriteHoldRanOutIsAFreshHoldWithANewToken() throws Exception {
        long first = (Long) write(A, 150).get(1);
        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(keys.lock()) == 0);

        List<Object> reply = write(A, LEASE, 1, grantOf("w", A));

        assertThat(reply.get(0)).isEqualTo(1L);
        assertThat((Long) reply.get(1)).isGreaterThan(first);
        assertThat(reply.get(2)).isEqualTo(1L);
        assertThat(sync.hget(keys.lock(), "w:" + A)).isEqualTo("1");
    }

    @Test
    void readHoldsThatAllRanOutLeaveNoKey() throws Exception {
        read(A, 100);

        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(keys.lock()) == 0);
        assertThat(write(B, LEASE).get(0)).isEqualTo(1L);
    }

    @Test
    void renewExtendsOnlyTheOwnersLeaseAndTheHashTtl() throws Exception {
        read(A, 300);
        read(B, 300);

        assertThat(rwRenew("r", A, LEASE)).isOne();
        assertThat(rwRenew("r", C, LEASE)).isZero();

        assertThat(sync.pttl(keys.lock())).isBetween(LEASE - 1_000, LEASE);
        assertThat(Long.parseLong(sync.hget(keys.lock(), "rd:" + B)))
                .isLessThan(Long.parseLong(sync.hget(keys.lock(), "rd:" + A)) - 5_000);
        assertThat(sync.hexists(keys.lock(), "r:" + C)).isFalse();
    }

    @Test
    void expiredWriterIsDroppedSoReadersGetIn() throws Exception {
        write(A, 150);

        await().atMost(Duration.ofSeconds(5)).until(() -> (Long) read(B, LEASE).get(0) == 1L);
        assertThat(sync.hexists(keys.lock(), "w:" + A)).isFalse();
        assertThat(sync.hget(keys.lock(), "mode")).isEqualTo("read");
    }

    @Test
    void aReentrantLockOfTheSameNameIsNeitherTakenNorDestroyed() throws Exception {
        sync.hset(keys.lock(), A, "1");
        sync.pexpire(keys.lock(), LEASE);

        assertThat(read(B, LEASE).get(0)).isEqualTo(0L);
        assertThat(write(B, LEASE).get(0)).isEqualTo(0L);
        assertThat(release("r", B, "m")).isEqualTo(-1L);
        assertThat(rwRenew("r", A, LEASE)).isZero();

        assertThat(sync.hgetall(keys.lock())).containsExactly(java.util.Map.entry(A, "1"));
    }

    @Test
    void tokensKeepGrowingFromTheServerClockAfterTheCounterExpired() throws Exception {
        long first = (Long) write(A, LEASE).get(1);
        release("w", A, "m");
        sync.del(keys.fence());

        long before = serverMicros();
        long second = (Long) read(B, LEASE).get(1);
        sync.del(keys.fence());
        long third = (Long) read(C, LEASE).get(1);
        release("r", B, "m");
        release("r", C, "m");
        sync.del(keys.fence());
        long fourth = (Long) write(A, LEASE).get(1);

        assertThat(second).isGreaterThan(first).isGreaterThanOrEqualTo(before);
        assertThat(third).isGreaterThan(second);
        assertThat(fourth).isGreaterThan(third);
        assertThat(sync.pttl(keys.fence())).isPositive();
    }

    // The same call sent twice: Lettuce re-sends a command whose reply was lost.

    @Test
    void readGrantSentTwiceIsGrantedOnceWithTheSameToken() throws Exception {
        List<Object> first = read(A, LEASE);
        long counter = fenceCounter();

        assertThat(read(A, LEASE)).isEqualTo(first);

        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("1");
        assertThat(sync.hget(keys.lock(), "rq:" + A)).isEqualTo(grantOf("r", A));
        assertThat(fenceCounter()).isEqualTo(counter);
    }

    @Test
    void readReentrySentTwiceCountsOnce() throws Exception {
        long token = (Long) read(A, LEASE).get(1);

        assertThat(read(A, LEASE, 1, grantOf("r", A))).containsExactly(1L, token, 2L);
        assertThat(read(A, LEASE, 1, grantOf("r", A))).containsExactly(1L, token, 2L);

        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("2");
    }

    @Test
    void writeGrantSentTwiceIsGrantedOnceWithTheSameToken() throws Exception {
        List<Object> first = write(A, LEASE);
        long counter = fenceCounter();

        assertThat(write(A, LEASE)).isEqualTo(first);

        assertThat(sync.hget(keys.lock(), "w:" + A)).isEqualTo("1");
        assertThat(sync.hget(keys.lock(), "wq:" + A)).isEqualTo(grantOf("w", A));
        assertThat(fenceCounter()).isEqualTo(counter);
    }

    @Test
    void writeReentrySentTwiceCountsOnce() throws Exception {
        long token = (Long) write(A, LEASE).get(1);

        assertThat(write(A, LEASE, 1, grantOf("w", A))).containsExactly(1L, token, 2L);
        assertThat(write(A, LEASE, 1, grantOf("w", A))).containsExactly(1L, token, 2L);

        assertThat(sync.hget(keys.lock(), "w:" + A)).isEqualTo("2");
    }

    @Test
    void partialReadReleaseSentTwiceCountsDownOnce() throws Exception {
        read(A, LEASE);
        read(A, LEASE, 1, grantOf("r", A));
        read(A, LEASE, 2, grantOf("r", A));

        assertThat(release("r", A, grantOf("r", A), 3, "m", NOTE_TTL_MS)).isZero();
        assertThat(release("r", A, grantOf("r", A), 3, "m", NOTE_TTL_MS)).isZero();

        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("2");
    }

    @Test
    void lastReadReleaseSentTwiceAnswersOneAgainAndPublishesOnce() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        read(A, LEASE);
        assertThat(release("r", A, "first")).isOne();

        assertThat(release("r", A, "repeat")).isOne();

        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(sync.get(noteKey("r:" + A))).isEqualTo(grantOf("r", A));
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("first");
        sync.publish(keys.channel(), "flush");
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
    }

    @Test
    void writeReleaseSentTwiceLeavesTheReadHoldsAndPublishesOnce() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        write(A, LEASE);
        read(A, LEASE);
        assertThat(release("w", A, "first")).isOne();

        assertThat(release("w", A, "repeat")).isOne();

        assertThat(sync.hget(keys.lock(), "mode")).isEqualTo("read");
        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("1");
        assertThat(sync.hexists(keys.lock(), "w:" + A)).isFalse();
        assertThat(sync.get(noteKey("w:" + A))).isEqualTo(grantOf("w", A));
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("first");
        sync.publish(keys.channel(), "flush");
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("flush");
    }

    @Test
    void repeatOfALastReleaseWithAnotherGrantIdOrKindGetsMinusOne() throws Exception {
        read(A, LEASE);
        release("r", A, "m");

        assertThat(release("r", A, "g-other", 1, "m", NOTE_TTL_MS)).isEqualTo(-1L);
        assertThat(release("w", A, grantOf("r", A), 1, "m", NOTE_TTL_MS))
                .as("the note is per kind")
                .isEqualTo(-1L);
        assertThat(release("r", B, grantOf("r", A), 1, "m", NOTE_TTL_MS))
                .as("and per owner")
                .isEqualTo(-1L);
    }

    @Test
    void repeatOfALastReleaseAfterTheNoteExpiredGetsMinusOne() throws Exception {
        write(A, LEASE);
        assertThat(release("w", A, grantOf("w", A), 1, "m", 100)).isOne();
        assertThat(release("w", A, grantOf("w", A), 1, "m", 100))
                .as("while the note lives")
                .isOne();

        await().atMost(Duration.ofSeconds(5)).until(() -> sync.exists(noteKey("w:" + A)) == 0);

        assertThat(release("w", A, grantOf("w", A), 1, "m", 100)).isEqualTo(-1L);
        assertThat(sync.exists(keys.lock())).isZero();
    }

    @Test
    void renewalSentTwiceAnswersOneBothTimesAndChangesNoCount() throws Exception {
        long token = (Long) write(A, 300).get(1);

        assertThat(rwRenew("w", A, LEASE)).isOne();
        assertThat(rwRenew("w", A, LEASE)).isOne();

        assertThat(sync.hget(keys.lock(), "w:" + A)).isEqualTo("1");
        assertThat(sync.hget(keys.lock(), "wt:" + A)).isEqualTo(Long.toString(token));
        assertThat(sync.pttl(keys.lock())).isBetween(LEASE - 1_000, LEASE);
    }

    @Test
    void renewalWithAStaleGrantIdReturnsZeroAndExtendsNothing() throws Exception {
        read(A, 2_000);
        long leaseEnd = Long.parseLong(sync.hget(keys.lock(), "rd:" + A));

        assertThat(rwRenew("r", A, "g-stale", LEASE)).isZero();
        assertThat(rwRenew("w", A, grantOf("r", A), LEASE))
                .as("a read grant does not renew a write hold")
                .isZero();

        assertThat(Long.parseLong(sync.hget(keys.lock(), "rd:" + A))).isEqualTo(leaseEnd);
        assertThat(sync.pttl(keys.lock())).isBetween(1L, 2_000L);
    }

    @Test
    void presentReaderWithAnotherGrantIdGetsTheStaleReadHoldReplacedByAFreshLargerToken() throws Exception {
        long stale = (Long) read(A, LEASE, 0, "g1").get(1);
        read(A, LEASE, 1, "g1");

        List<Object> fresh = read(A, LEASE, 0, "g2");

        assertThat(fresh.get(0)).isEqualTo(1L);
        assertThat((Long) fresh.get(1)).isGreaterThan(stale);
        assertThat(fresh.get(2)).isEqualTo(1L);
        assertThat(sync.hget(keys.lock(), "r:" + A)).isEqualTo("1");
        assertThat(sync.hget(keys.lock(), "rt:" + A)).isEqualTo(fresh.get(1).toString());
        assertThat(sync.hget(keys.lock(), "rq:" + A)).isEqualTo("g2");
        assertThat(release("r", A, "g1", 1, "m", NOTE_TTL_MS))
                .as("the replaced grant cannot release")
                .isEqualTo(-1L);
    }

    @Test
    void presentWriterWithAnotherGrantIdGetsTheStaleWriteHoldReplacedByAFreshLargerToken() throws Exception {
        long stale = (Long) write(A, LEASE, 0, "g1").get(1);
        write(A, LEASE, 1, "g1");

        List<Object> fresh = write(A, LEASE, 0, "g2");

        assertThat(fresh.get(0)).isEqualTo(1L);
        assertThat((Long) fresh.get(1)).isGreaterThan(stale);
        assertThat(fresh.get(2)).isEqualTo(1L);
        assertThat(sync.hget(keys.lock(), "w:" + A)).isEqualTo("1");
        assertThat(sync.hget(keys.lock(), "wt:" + A)).isEqualTo(fresh.get(1).toString());
        assertThat(sync.hget(keys.lock(), "wq:" + A)).isEqualTo("g2");
        assertThat(sync.hget(keys.lock(), "mode")).isEqualTo("write");
        assertThat(rwRenew("w", A, "g1", LEASE))
                .as("the replaced grant cannot renew")
                .isZero();
    }

    /** The grant id an owner's holds of {@code kind} use in these tests. */
    private static String grantOf(String kind, String owner) {
        return "g" + kind + ":" + owner;
    }

    private List<Object> read(String owner, long leaseMs) throws Exception {
        return read(owner, leaseMs, 0, grantOf("r", owner));
    }

    private List<Object> read(String owner, long leaseMs, int held, String grant) throws Exception {
        return scripts.array(
                        LockScript.RW_READ_ACQUIRE,
                        new String[] {keys.lock(), keys.fence(), keys.writers()},
                        owner,
                        Long.toString(leaseMs),
                        Long.toString(FENCE_TTL_MS),
                        Integer.toString(held),
                        grant)
                .get(5, TimeUnit.SECONDS);
    }

    private List<Object> write(String owner, long leaseMs) throws Exception {
        return write(owner, leaseMs, 0, grantOf("w", owner));
    }

    private List<Object> write(String owner, long leaseMs, int held, String grant) throws Exception {
        return write(owner, leaseMs, held, grant, 0);
    }

    /** A write attempt of a caller that still waits {@code waitMs} (0: a single attempt). */
    private List<Object> write(String owner, long leaseMs, int held, String grant, long waitMs) throws Exception {
        return scripts.array(
                        LockScript.RW_WRITE_ACQUIRE,
                        new String[] {keys.lock(), keys.fence(), keys.writers()},
                        owner,
                        Long.toString(leaseMs),
                        Long.toString(FENCE_TTL_MS),
                        Integer.toString(held),
                        grant,
                        Long.toString(waitMs),
                        Long.toString(MARK_MS))
                .get(5, TimeUnit.SECONDS);
    }

    private long writerLeaves(String owner, String waitId, String message) throws Exception {
        return scripts.integer(
                        LockScript.RW_LEAVE,
                        new String[] {keys.writers(), keys.leaveNote("w:" + owner)},
                        owner,
                        keys.channel(),
                        message,
                        waitId,
                        Long.toString(NOTE_TTL_MS))
                .get(5, TimeUnit.SECONDS);
    }

    /** The last release of the owner's hold of {@code kind} under its usual grant id. */
    private long release(String kind, String owner, String message) throws Exception {
        return release(kind, owner, grantOf(kind, owner), 1, message, NOTE_TTL_MS);
    }

    private long release(String kind, String owner, String grant, int held, String message, long noteTtlMs)
            throws Exception {
        return scripts.integer(
                        LockScript.RW_RELEASE,
                        new String[] {keys.lock(), keys.note(kind + ':' + owner)},
                        kind,
                        owner,
                        grant,
                        Integer.toString(held),
                        keys.channel(),
                        message,
                        Long.toString(noteTtlMs))
                .get(5, TimeUnit.SECONDS);
    }

    private long rwRenew(String kind, String owner, long leaseMs) throws Exception {
        return rwRenew(kind, owner, grantOf(kind, owner), leaseMs);
    }

    private long rwRenew(String kind, String owner, String grant, long leaseMs) throws Exception {
        return scripts.integer(
                        LockScript.RW_RENEW, new String[] {keys.lock()}, kind, owner, grant, Long.toString(leaseMs))
                .get(5, TimeUnit.SECONDS);
    }
}
