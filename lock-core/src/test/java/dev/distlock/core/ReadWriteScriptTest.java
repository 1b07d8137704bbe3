package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rw-*.lua scripts run directly against a real Redis: readers sharing, writers excluding, re-entry,
 * the write holder also reading, the upgrade guard, releases (downgrade to read mode, the last one deleting
 * and publishing), owner and kind checks, a plain lock of the same name left alone, fencing tokens, and
 * stale grants replaced. Writer marks: {@link ReadWriteWriterMarkScriptTest}; leases and renewals:
 * {@link ReadWriteLeaseScriptTest}; every call sent twice: {@link ReadWriteRepeatedCallScriptTest}.
 */
class ReadWriteScriptTest extends ReadWriteScriptSupport {

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
}
