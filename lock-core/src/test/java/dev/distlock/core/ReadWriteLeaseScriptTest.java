package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Leases in the rw-*.lua scripts, run directly against a real Redis: each hold's own lease, the hash TTL as
 * the longest reader lease, expired readers and writers dropped, re-entry after a hold ran out a fresh hold,
 * and renewals that extend only the owner's grant.
 */
class ReadWriteLeaseScriptTest extends ReadWriteScriptSupport {

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
}
