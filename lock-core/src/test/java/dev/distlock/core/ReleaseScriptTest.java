package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.script.LockScript;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** release.lua run directly against a real Redis: owner check, count decrement, delete and publish. */
class ReleaseScriptTest extends ScriptTestSupport {

    ReleaseScriptTest() {
        super("release");
    }

    private static final String OWNER_A = "client-a:1";
    private static final String OWNER_B = "client-b:1";

    @Test
    void wrongOwnerGetsMinusOneAndLockIsUntouched() throws Exception {
        acquire(OWNER_A);
        long ttlBefore = sync.pttl(keys.lock());

        assertThat(release(OWNER_B, "m")).isEqualTo(-1L);

        assertThat(sync.hget(keys.lock(), OWNER_A)).isEqualTo("1");
        assertThat(sync.hexists(keys.lock(), OWNER_B)).isFalse();
        assertThat(sync.pttl(keys.lock())).isBetween(1L, ttlBefore);
    }

    @Test
    void releasingAFreeLockGetsMinusOneAndCreatesNothing() throws Exception {
        assertThat(release(OWNER_A, "m")).isEqualTo(-1L);

        assertThat(sync.exists(keys.lock())).isZero();
    }

    @Test
    void releaseOfAReentrantHoldDecrementsCountAndReturnsZero() throws Exception {
        acquire(OWNER_A);
        acquire(OWNER_A);

        assertThat(release(OWNER_A, "m")).isZero();

        assertThat(sync.hget(keys.lock(), OWNER_A)).isEqualTo("1");
        assertThat(sync.pttl(keys.lock())).isPositive();
    }

    @Test
    void lastReleaseDeletesLockAndPublishesWakeUp() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        acquire(OWNER_A);

        assertThat(release(OWNER_A, "wake-from-a")).isEqualTo(1L);

        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("wake-from-a");
    }

    @Test
    void onlyTheLastReleasePublishes() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        acquire(OWNER_A);
        acquire(OWNER_A);

        assertThat(release(OWNER_B, "from-wrong-owner")).isEqualTo(-1L);
        assertThat(release(OWNER_A, "from-partial-release")).isZero();
        assertThat(release(OWNER_A, "from-last-release")).isEqualTo(1L);

        // Redis delivers a connection's publishes in order: had an earlier call published, it would come first.
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("from-last-release");
    }

    @Test
    void releaseKeepsTheFencingCounter() throws Exception {
        long token = acquire(OWNER_A);

        release(OWNER_A, "m");

        assertThat(sync.get(keys.fence())).isEqualTo(Long.toString(token));
    }

    private long acquire(String owner) throws Exception {
        return (Long) scripts.array(LockScript.ACQUIRE, new String[] {keys.lock(), keys.fence()}, owner, "30000",
                Long.toString(Duration.ofDays(1).toMillis())).get(5, TimeUnit.SECONDS).get(1);
    }

    private long release(String owner, String message) throws Exception {
        return scripts.integer(LockScript.RELEASE, new String[] {keys.lock(), keys.channel()}, owner, message).get(5, TimeUnit.SECONDS);
    }
}
