package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener.RenewalOutcome;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.LockOwner;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.core.testing.RelayedLockClient;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.event.command.CommandListener;
import io.lettuce.core.event.command.CommandStartedEvent;
import io.lettuce.core.protocol.CommandType;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A watchdog hold re-entered with a shorter explicit lease while a renewal is on its way, on the
 * renewal connection. Redis runs the renewal first (TTL: the watchdog lease), then the re-entry (TTL:
 * the shorter lease); the client reads the re-entry's reply first, the renewal's after it. The
 * renewal must not stretch the hold's end past the shorter TTL Redis now has: when Redis then stops
 * answering, the lock expires there at the shorter lease's end, and its holder must be told of the
 * loss by then (give or take a watchdog round), not only when the watchdog lease would have ended.
 */
@BehaviourTest
class RenewalAfterReentryTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(6);
    private static final Duration SHORTER_LEASE = Duration.ofSeconds(1);

    private final RecordingListener events = new RecordingListener();
    private final HoldAtRenewal holdAtRenewal = new HoldAtRenewal();
    private final LockOwner owner = new LockOwner("reentering-owner");
    private RelayedLockClient relayed;
    private FaultRelay relay;
    private LockClient client;
    private RedisProbe probe;

    @BeforeEach
    void setUp() throws Exception {
        // Connections open in order: commands (0), renewals (1), pub/sub (2).
        relayed = new RelayedLockClient(
                redis.server(),
                lettuce -> lettuce.addListener(holdAtRenewal),
                LockClientOptions.builder()
                        .watchdogLease(WATCHDOG_LEASE)
                        .listener(events)
                        .build());
        relay = relayed.relay;
        client = relayed.client;
        probe = RedisProbe.connect(redis.server());
        ScriptRunnerTest.cacheScripts(probe.sync(), script -> true);
    }

    @AfterEach
    void tearDown() {
        owner.close();
        relayed.close();
        probe.close();
    }

    @Test
    void aRenewalAnsweredAfterAShorterReentryDoesNotPostponeTheLossReport() throws Exception {
        String name = Names.fresh("renewal-after-reentry");
        RedisLock lock = client.getLock(name);
        String key = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).lock();
        owner.act(lock::lock); // a watchdog hold

        int renewedBefore = events.renewals(name, RenewalOutcome.RENEWED).size();
        CountDownLatch renewing = holdAtRenewal.arm(relay);
        assertThat(renewing.await(20, TimeUnit.SECONDS))
                .as("a renewal was sent")
                .isTrue();
        await("Redis ran the renewal")
                .atMost(Duration.ofSeconds(5))
                .until(() -> probe.sync().pttl(key) > WATCHDOG_LEASE.toMillis() - 500);
        Future<Boolean> reentry = owner.submit(() -> lock.tryLock(Duration.ofSeconds(5), SHORTER_LEASE));
        await("Redis ran the re-entry after it")
                .atMost(Duration.ofSeconds(5))
                .until(() -> probe.sync().pttl(key) <= SHORTER_LEASE.toMillis());
        relay.releaseRepliesOf(0); // the command connection's: the re-entry's reply first
        assertThat(reentry.get(5, TimeUnit.SECONDS)).isTrue();
        long reentered = System.nanoTime();
        relay.releaseReplies(); // then the renewal's
        await("the renewal's reply read")
                .atMost(Duration.ofSeconds(5))
                .until(() -> events.renewals(name, RenewalOutcome.RENEWED).size() > renewedBefore);
        relay.blackHole(); // Redis unreachable from now on: no renewal is confirmed

        await("the holder told of the loss")
                .atMost(Duration.ofSeconds(15))
                .until(() -> !events.leaseLosses(name).isEmpty());
        long toldAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - reentered);
        // The shorter lease (1 s) plus a watchdog round (2 s) plus slack; the watchdog lease alone is 6 s.
        assertThat(toldAfterMs)
                .as("ms from the re-entry until its holder was told the lock was lost")
                .isLessThan(4_500);
    }

    /** Holds the relay's replies as the first renewal after arming is sent (on the watchdog's thread, before Lettuce writes it). */
    private static final class HoldAtRenewal implements CommandListener {
        private final AtomicBoolean armed = new AtomicBoolean();
        private volatile FaultRelay relay;
        private volatile CountDownLatch renewing;

        CountDownLatch arm(FaultRelay relay) {
            this.relay = relay;
            renewing = new CountDownLatch(1);
            armed.set(true);
            return renewing;
        }

        @Override
        public void commandStarted(CommandStartedEvent event) {
            if (event.getCommand().getType() == CommandType.EVALSHA
                    && event.getCommand().getArgs().toCommandString().startsWith(LockScript.RENEW.sha1())
                    && armed.compareAndSet(true, false)) {
                relay.holdReplies();
                renewing.countDown();
            }
        }
    }
}
