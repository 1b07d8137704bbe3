package dev.distlock.core.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedisLock;
import dev.distlock.core.TestAccess;
import dev.distlock.core.internal.engine.FairKind;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.Waits;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * One fair hand-off between two clients, counted in scripts: the holder releases to a waiter of the other
 * client that re-checks only every 60 s (so only the release's message moves it).
 */
public final class FairGrantRun {

    private FairGrantRun() {}

    /**
     * The scripts {@code owner} (the server of the lock's slot) ran from {@code holder}'s release of the fair
     * lock {@code name} until {@code waiting}'s waiter held it; asserts that the waiter got it.
     */
    public static long scriptsUntilHeld(LockClient holder, LockClient waiting, String name, RedisServer owner)
            throws Exception {
        LockKeys keys = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name);
        RedisLock held = holder.getFairLock(name);
        held.lock(); // the fair scripts loaded on the owner: no NOSCRIPT below
        held.unlock();
        held.lock();
        long before = ServerStats.scriptRuns(owner);
        CountDownLatch acquired = new CountDownLatch(1);
        CountDownLatch counted = new CountDownLatch(1);
        OtherThread<Boolean> waiter = OtherThread.start(() -> {
            RedisLock lock = TestAccess.getLock(
                    waiting, new FairKind(Duration.ofSeconds(60), Duration.ofSeconds(60)), name, name);
            if (!lock.tryLock(Waits.GRANTED)) {
                return false;
            }
            acquired.countDown();
            counted.await();
            lock.unlock();
            return true;
        });
        // queued, subscribed, and its attempt after subscribing ran: it sleeps until a message comes
        await().atMost(Waits.GRANTED)
                .until(() ->
                        owner.query("LLEN", keys.queue()).equals(":1") && ServerStats.scriptRuns(owner) - before >= 2);
        long released = ServerStats.scriptRuns(owner);

        held.unlock();

        assertThat(acquired.await(Waits.GRANTED.toSeconds(), TimeUnit.SECONDS)).isTrue();
        long runs = ServerStats.scriptRuns(owner) - released;
        counted.countDown();
        assertThat(waiter.get()).isTrue();
        return runs;
    }
}
