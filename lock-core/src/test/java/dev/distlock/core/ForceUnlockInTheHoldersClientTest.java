package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A force-unlock sent through the client that holds the lock (an operator's Actuator call on the holding
 * instance, or local mode) tells the holder at once: its loss is reported when the lock is deleted, not
 * at its next renewal, and its unlock names the force-unlock. Holders in other clients learn it later.
 */
@BehaviourTest
class ForceUnlockInTheHoldersClientTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    static Stream<Arguments> clients() {
        Function<LockClientOptions, LockClient> onRedis =
                options -> LockClient.create(RedisURI.create(redis.server().uri()), options);
        Function<LockClientOptions, LockClient> local = LockClient::local;
        return Stream.of(Arguments.of("redis", onRedis), Arguments.of("local", local));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("clients")
    void theHolderIsToldAtOnceAndItsUnlockNamesTheForceUnlock(
            String mode, Function<LockClientOptions, LockClient> clients) throws Exception {
        List<String> lost = new CopyOnWriteArrayList<>();
        LockListener listener = new LockListener() {
            @Override
            public void onLeaseLost(LockInfo lock, String reason) {
                lost.add(lock.key() + ": " + reason);
            }
        };
        // A watchdog lease far longer than the test: no renewal can be what reports the loss.
        try (LockClient client = clients.apply(LockClientOptions.builder()
                .watchdogLease(Duration.ofMinutes(10))
                .listener(listener)
                .build())) {
            String name = Names.fresh("forced-" + mode);
            RedisLock lock = client.getReadWriteLock(name).writeLock();
            assertThat(lock.tryLock(Waits.GRANTED)).isTrue();

            assertThat(client.getReadWriteLock(name).writeLock().forceUnlock()).isTrue();

            assertThat(lost).containsExactly(name + ": it was force-unlocked");
            assertThatThrownBy(lock::unlock)
                    .isInstanceOf(LockLeaseExpiredException.class)
                    .hasMessageContaining("it was force-unlocked")
                    .extracting(e -> ((LockLeaseExpiredException) e).getLoss())
                    .isEqualTo(LockLeaseExpiredException.Loss.FORCE_UNLOCKED);
            assertThat(lost).as("reported once").hasSize(1);
        }
    }
}
