package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.script.LockScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The rw-*.lua scripts run directly against a real Redis: sharing, exclusion, downgrade, the upgrade
 * guard, per-hold leases and the hash TTL, owner checks, wake-ups and fencing tokens.
 */
class ReadWriteScriptTest extends ScriptTestSupport {

    ReadWriteScriptTest() {
        super("rw-script");
    }

    private static final String A = "client-a:1";
    private static final String B = "client-b:1";
    private static final String C = "client-c:1";
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
        List<Object> again = read(A, LEASE);

        assertThat(again).containsExactly(1L, first.get(1), 2L);
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
        assertThat(write(A, LEASE)).containsExactly(1L, first.get(1), 2L);

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
        read(A, LEASE);

        assertThat(release("r", A, "m")).isZero();
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
        assertThat(renew("r", A, LEASE)).isZero();

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
            assertThat(renew("r", B, 1_000)).isOne();
            return !sync.hexists(keys.lock(), "r:" + A);
        });

        assertThat(sync.hexists(keys.lock(), "rd:" + A)).isFalse();
        assertThat(release("r", A, "m")).isEqualTo(-1L);
        assertThat(release("r", B, "m")).isOne();
        assertThat(sync.exists(keys.lock())).isZero();
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

        assertThat(renew("r", A, LEASE)).isOne();
        assertThat(renew("r", C, LEASE)).isZero();

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
        assertThat(renew("r", A, LEASE)).isZero();

        assertThat(sync.hgetall(keys.lock())).containsExactly(java.util.Map.entry(A, "1"));
    }

    @Test
    void tokensKeepGrowingFromTheServerClockAfterTheCounterExpired() throws Exception {
        long first = (Long) write(A, LEASE).get(1);
        release("w", A, "m");
        sync.del(keys.fence());

        long second = (Long) read(B, LEASE).get(1);

        assertThat(second).isGreaterThan(first);
        assertThat(sync.pttl(keys.fence())).isPositive();
    }

    private List<Object> read(String owner, long leaseMs) throws Exception {
        return scripts.array(LockScript.RW_READ_ACQUIRE, new String[] {keys.lock(), keys.fence()}, owner, Long.toString(leaseMs),
                "60000").get(5, TimeUnit.SECONDS);
    }

    private List<Object> write(String owner, long leaseMs) throws Exception {
        return scripts.array(LockScript.RW_WRITE_ACQUIRE, new String[] {keys.lock(), keys.fence()}, owner, Long.toString(leaseMs),
                "60000").get(5, TimeUnit.SECONDS);
    }

    private long release(String kind, String owner, String message) throws Exception {
        return scripts.integer(LockScript.RW_RELEASE, new String[] {keys.lock(), keys.channel()}, kind, owner, message)
                .get(5, TimeUnit.SECONDS);
    }

    private long renew(String kind, String owner, long leaseMs) throws Exception {
        return scripts.integer(LockScript.RW_RENEW, new String[] {keys.lock()}, kind, owner, Long.toString(leaseMs))
                .get(5, TimeUnit.SECONDS);
    }
}
