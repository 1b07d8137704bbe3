package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.answered;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lost hold's exception says how it was lost and gives the advice for that cause: a longer lease
 * only where the explicit lease was too short, never for a watchdog hold Redis lost.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
@BehaviourTest
class LeaseLossAdviceTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final String LONGER_LEASE_ADVICE = "the explicit lease was shorter than the work";

    private LockClient client;
    private String name;

    @BeforeEach
    void setUp() {
        client = LockClient.create(RedisURI.create(redis.server().uri()));
        name = Names.fresh("advice");
    }

    @AfterEach
    void tearDown() {
        client.close();
    }

    @Test
    void anExplicitLeaseThatRanOutAdvisesTheWatchdogOrALongerLease() throws Exception {
        RedisLock lock = client.getLock(name);
        assertThat(answered(() -> lock.tryLock(Duration.ZERO, Duration.ofMillis(200))))
                .isTrue();
        // Redis ends the key itself when the lease runs out: waiting for that is waiting for the mechanism.
        await().atMost(Duration.ofSeconds(10)).until(() -> !keyExists());

        LockLeaseExpiredException e = catchThrowableOfType(LockLeaseExpiredException.class, lock::unlock);

        assertThat(e.getLoss()).isEqualTo(LockLeaseExpiredException.Loss.LEASE_RAN_OUT);
        assertThat(e)
                .hasMessageContaining("Lock '" + name + "' was lost while held")
                .hasMessageContaining(LONGER_LEASE_ADVICE);
    }

    @Test
    void aWatchdogHoldWhoseKeyRedisLostDoesNotAdviseALongerLease() {
        RedisLock lock = client.getLock(name);
        lock.lock();
        deleteKey(); // as an eviction, a restart without persistence or a force-unlock would

        LockLeaseExpiredException e = catchThrowableOfType(LockLeaseExpiredException.class, lock::unlock);

        assertThat(e.getLoss()).isEqualTo(LockLeaseExpiredException.Loss.KEY_LOST);
        assertThat(e)
                .hasMessageContaining("a longer lease would not have helped")
                .hasMessageContaining("maxmemory-policy noeviction")
                .hasMessageNotContaining(LONGER_LEASE_ADVICE)
                .hasMessageNotContaining("prefer the watchdog lease");
    }

    @Test
    void anExplicitLeaseWhoseKeyWentBeforeItRanOutIsLostByRedisNotByItsLength() throws Exception {
        RedisLock lock = client.getLock(name);
        // A lease far longer than the test: it cannot run out before unlock.
        assertThat(answered(() -> lock.tryLock(Duration.ZERO, Duration.ofMinutes(10))))
                .isTrue();
        deleteKey();

        LockLeaseExpiredException e = catchThrowableOfType(LockLeaseExpiredException.class, lock::unlock);

        assertThat(e.getLoss()).isEqualTo(LockLeaseExpiredException.Loss.KEY_LOST);
        assertThat(e).hasMessageNotContaining(LONGER_LEASE_ADVICE);
    }

    @Test
    void aHoldWhoseClientWasClosedSaysSo() {
        RedisLock lock = client.getLock(name);
        lock.lock();
        client.close();

        LockLeaseExpiredException e = catchThrowableOfType(LockLeaseExpiredException.class, lock::unlock);

        assertThat(e.getLoss()).isEqualTo(LockLeaseExpiredException.Loss.CLIENT_CLOSED);
        assertThat(e).hasMessageContaining("the lock client was closed").hasMessageNotContaining(LONGER_LEASE_ADVICE);
    }

    @Test
    void theTwoArgumentConstructorStillCompilesAndGivesGeneralAdvice() {
        LockLeaseExpiredException e = new LockLeaseExpiredException("k", "seen");
        assertThat(e.getLoss()).isEqualTo(LockLeaseExpiredException.Loss.UNKNOWN);
        assertThat(e).hasMessageContaining("Lock 'k' was lost while held: seen");
    }

    private boolean keyExists() {
        return redis.server().command("EXISTS", "lock:{" + name + "}").equals(":1");
    }

    private void deleteKey() {
        assertThat(redis.server().command("DEL", "lock:{" + name + "}")).isEqualTo(":1");
    }
}
