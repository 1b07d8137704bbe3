package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.script.LockScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** force-release.lua run directly against a real Redis: deletes whoever holds, publishes only then. */
class ForceReleaseScriptTest extends ScriptTestSupport {

    ForceReleaseScriptTest() {
        super("force");
    }

    @Test
    void deletesALockHeldReentrantlyByAnotherOwnerAndPublishes() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());
        acquire("client-a:1");
        acquire("client-a:1");

        assertThat(forceRelease("forced")).isEqualTo(1L);

        assertThat(sync.exists(keys.lock())).isZero();
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("forced");
    }

    @Test
    void freeLockReturnsZeroAndDoesNotPublish() throws Exception {
        BlockingQueue<String> messages = probe.subscribe(keys.channel());

        assertThat(forceRelease("should-not-arrive")).isZero();
        acquire("client-a:1");
        assertThat(forceRelease("second")).isEqualTo(1L);

        // publishes arrive in order, so a message from the first call would come first
        assertThat(messages.poll(5, TimeUnit.SECONDS)).isEqualTo("second");
    }

    @Test
    void keepsTheFencingCounterSoTheNextGrantGetsALargerToken() throws Exception {
        long first = acquire("client-a:1");

        forceRelease("m");
        long second = acquire("client-b:1");

        assertThat(second).isGreaterThan(first);
    }

    private long acquire(String owner) throws Exception {
        List<Object> reply = scripts.array(LockScript.ACQUIRE, new String[] {keys.lock(), keys.fence()}, owner, "30000",
                Long.toString(Duration.ofDays(1).toMillis())).get(5, TimeUnit.SECONDS);
        assertThat(reply.get(0)).isEqualTo(1L);
        return (Long) reply.get(1);
    }

    private long forceRelease(String message) throws Exception {
        return scripts.integer(LockScript.FORCE_RELEASE, new String[] {keys.lock(), keys.channel()}, message).get(5, TimeUnit.SECONDS);
    }
}
