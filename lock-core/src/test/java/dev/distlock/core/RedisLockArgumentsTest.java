package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.answered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Bad inputs fail fast with messages that say what is wrong, and never leave a lock behind. */
class RedisLockArgumentsTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static LockClient client;
    private String name;
    private RedisLock lock;

    @BeforeAll
    static void connect() {
        client = LockClient.create(RedisURI.create(redis.server().uri()));
    }

    @AfterAll
    static void close() {
        client.close();
    }

    @BeforeEach
    void freshLock() {
        name = Names.fresh("args");
        lock = client.getLock(name);
    }

    @Test
    void nullOrBlankLockNamesAreRejected() {
        assertThatThrownBy(() -> client.getLock(null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lock name must not be null");
        assertThatThrownBy(() -> client.getLock(""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lock name must not be blank");
        assertThatThrownBy(() -> client.getLock(" \t"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("lock name must not be blank");
        assertThatThrownBy(() -> client.getLock(null, "label")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void negativeOrNullWaitIsRejectedNamingTheLock() {
        assertThatThrownBy(() -> lock.tryLock(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("waitTime")
                .hasMessageContaining(name)
                .hasMessageContaining("negative");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofMillis(-1), Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> lock.tryLock(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("waitTime");
        assertNothingHeld();
    }

    @Test
    void zeroOrNegativeLeaseIsRejectedNamingTheLock() {
        assertThatThrownBy(() -> lock.lock(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease")
                .hasMessageContaining(name)
                .hasMessageContaining("watchdog");
        assertThatThrownBy(() -> lock.lock(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(1), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(1), Duration.ofMillis(9)))
                .as("shorter than a round trip could carry the grant back")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at least 10 ms")
                .hasMessageContaining("before Redis's grant reaches the client");
        assertThatThrownBy(() -> lock.tryLock(Duration.ofSeconds(1), ChronoUnit.FOREVER.getDuration()))
                .as("too long to count in milliseconds")
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 365 days");
        assertThatThrownBy(() -> lock.lock(null))
                .as("lock(lease) has a twin for the watchdog")
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("lease of lock '" + name + "' must not be null: call lock()");
        assertNothingHeld();
    }

    @Test
    void nullLeaseMeansTheWatchdogLease() throws Exception {
        assertThat(answered(() -> lock.tryLock(Duration.ZERO, null))).isTrue();

        assertThat(lock.remainingLease()).isGreaterThan(Duration.ofSeconds(20));
        lock.unlock();
    }

    @Test
    void keyPrefixWithBracesIsRejected() {
        assertThatThrownBy(() -> LockClientOptions.builder().keyPrefix("app:{x}:"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("app:{x}:")
                .hasMessageContaining("hash tag");
        assertThatThrownBy(() -> LockClientOptions.builder().keyPrefix("app{"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockClientOptions.builder().keyPrefix("app}"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> LockClientOptions.builder().keyPrefix(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void tooShortOrMissingDurationsInOptionsAreRejected() {
        assertThatThrownBy(() -> LockClientOptions.builder().watchdogLease(Duration.ofMillis(29)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("watchdogLease")
                .hasMessageContaining("30 ms");
        assertThatThrownBy(() -> LockClientOptions.builder().watchdogLease(null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("watchdogLease");
        assertThatThrownBy(() -> LockClientOptions.builder().fencingCounterTtl(Duration.ofSeconds(59)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("fencingCounterTtl");
        assertThatThrownBy(() -> LockClientOptions.builder().listener(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void optionsDefaultsAreDocumentedValues() {
        LockClientOptions defaults = LockClientOptions.defaults();

        assertThat(defaults.keyPrefix()).isEqualTo("lock:");
        assertThat(defaults.watchdogLease()).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.fencingCounterTtl()).isEqualTo(Duration.ofDays(1));
        assertThat(defaults.listeners()).isEmpty();
    }

    @Test
    void nullClientArgumentsAreRejected() {
        assertThatThrownBy(() -> LockClient.create((RedisURI) null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("uri");
        assertThatThrownBy(() -> LockClient.create((AbstractRedisClient) null, LockClientOptions.defaults()))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("redisClient");
        assertThatThrownBy(
                        () -> LockClient.create(RedisURI.create(redis.server().uri()), null))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("options must not be null: use LockClientOptions.defaults()");
    }

    @Test
    void unreachableRedisFailsWithALockExceptionThatSaysWhatToCheck() {
        RedisURI nowhere = RedisURI.create("redis://127.0.0.1:" + dev.distlock.testsupport.Ports.closed());
        nowhere.setTimeout(Duration.ofSeconds(2));

        assertThatThrownBy(() -> LockClient.create(nowhere))
                .isInstanceOf(LockException.class)
                .hasMessageContaining("Cannot connect to Redis")
                .hasMessageContaining("check host, port");
    }

    @Test
    void newConditionIsUnsupportedAndSaysWhy() {
        assertThatThrownBy(lock::newCondition)
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining(name);
    }

    @Test
    void nonPositiveTimeUnitWaitIsAllowedAsASingleAttempt() throws Exception {
        assertThat(answered(() -> lock.tryLock(-1, TimeUnit.MILLISECONDS))).isTrue();
        lock.unlock();
    }

    private void assertNothingHeld() {
        assertThat(lock.isLocked()).isFalse();
        assertThat(client.activeHolds()).isZero();
    }
}
