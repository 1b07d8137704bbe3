package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.LockOwner;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.core.testing.ReplyLoss;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.FaultRelay.Drop;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Semaphore calls whose reply is lost (the relay holds the reply Redis sent, then drops the connection):
 * whatever Lettuce and the engine send again, a permit is neither leaked nor counted twice, a release
 * still answers released, and no loss is reported falsely.
 */
@SlowTest
class SemaphoreLostReplyTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final int PERMITS = 2;

    private final RecordingListener events = new RecordingListener();
    private FaultRelay relay;
    private LockClient client;
    private LockOwner owner;
    private ReplyLoss loss;

    @BeforeEach
    void connect() {
        relay = FaultRelay.to(redis.server());
        client = LockClient.create(
                RedisURI.create(relay.uri()),
                LockClientOptions.builder().listener(events).build());
        owner = new LockOwner("permit-owner");
        loss = new ReplyLoss(relay, owner);
    }

    @AfterEach
    void close() {
        relay.heal();
        owner.close();
        client.close();
        relay.close();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void anAcquireWhoseReplyIsLostTakesOnePermitOrNone(boolean fair) throws Exception {
        for (Drop how : Drop.values()) {
            String name = Names.fresh("sem-lost-grant");
            RedisSemaphore semaphore = warmedUp(name, fair);

            Future<LockHandle> acquiring = loss.lose(how, () -> true, () -> semaphore.acquire());

            LockHandle permit;
            try {
                permit = acquiring.get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                assertThat(e.getCause())
                        .as(how + ": the only failure allowed is Redis not answering")
                        .isInstanceOf(LockUnavailableException.class);
                await("grant given back").atMost(Waits.GRANTED).until(() -> available(name, fair) == PERMITS);
                continue;
            }
            assertThat(available(name, fair))
                    .as(how + ": one permit taken, once")
                    .isEqualTo(PERMITS - 1);
            permit.unlock();
            assertThat(available(name, fair)).as(how + ": given back").isEqualTo(PERMITS);
            assertThat(events.leaseLosses(name)).isEmpty();
        }
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void aReleaseWhoseReplyIsLostStillReleasesOnceWithoutAFalseLoss(boolean fair) throws Exception {
        for (Drop how : Drop.values()) {
            String name = Names.fresh("sem-lost-release");
            RedisSemaphore semaphore = warmedUp(name, fair);
            LockHandle mine = owner.run(() -> semaphore.acquire());
            LockHandle other = owner.run(() -> semaphore.acquire());

            Future<Void> releasing = loss.lose(how, mine::unlock);

            releasing.get(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS);
            assertThat(available(name, fair))
                    .as(how + ": the other permit still held")
                    .isEqualTo(PERMITS - 1);
            assertThat(other.isHeld()).isTrue();
            other.unlock();
            assertThat(available(name, fair)).isEqualTo(PERMITS);
            assertThat(events.leaseLosses(name)).as(how + ": no false loss").isEmpty();
        }
    }

    /** A semaphore whose scripts Redis has loaded, so that a held reply is a script's answer, not NOSCRIPT. */
    private RedisSemaphore warmedUp(String name, boolean fair) {
        RedisSemaphore semaphore = fair ? client.getFairSemaphore(name, PERMITS) : client.getSemaphore(name, PERMITS);
        Optional<LockHandle> warm = owner.run(() -> semaphore.tryAcquire(Waits.GRANTED));
        warm.orElseThrow().unlock();
        assertThat(semaphore.availablePermits()).isEqualTo(PERMITS);
        return semaphore;
    }

    private int available(String name, boolean fair) {
        try (LockClient direct =
                LockClient.create(RedisURI.create(redis.server().uri()))) {
            return (fair ? direct.getFairSemaphore(name, PERMITS) : direct.getSemaphore(name, PERMITS))
                    .availablePermits();
        }
    }
}
