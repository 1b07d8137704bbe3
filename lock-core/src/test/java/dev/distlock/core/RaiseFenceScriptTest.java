package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.script.LockScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** raise-fence.lua run directly against a real Redis: raises only, and only for the holder. */
class RaiseFenceScriptTest extends ScriptTestSupport {

    RaiseFenceScriptTest() {
        super("raise-fence");
    }

    private static final String OWNER_A = "client-a:1";
    private static final String OWNER_B = "client-b:1";

    @Test
    void holderRaisesTheCounterSoTheNextGrantDrawsALargerToken() throws Exception {
        long token = acquire(OWNER_A);

        assertThat(raise(OWNER_A, token + 1_000)).isEqualTo(1L);
        release(OWNER_A);

        assertThat(acquire(OWNER_B)).isEqualTo(token + 1_001);
        assertThat(sync.pttl(keys.fence())).as("the counter keeps a TTL").isPositive();
    }

    @Test
    void neverLowersTheCounter() throws Exception {
        long token = acquire(OWNER_A);

        assertThat(raise(OWNER_A, token - 500)).isEqualTo(1L);

        assertThat(Long.parseLong(sync.get(keys.fence()))).isEqualTo(token);
    }

    @Test
    void nonHolderReturnsZeroAndLeavesTheCounterAlone() throws Exception {
        long token = acquire(OWNER_A);

        assertThat(raise(OWNER_B, token + 1_000)).isZero();

        assertThat(Long.parseLong(sync.get(keys.fence()))).isEqualTo(token);
    }

    @Test
    void onAFreeLockReturnsZeroAndCreatesNothing() throws Exception {
        assertThat(raise(OWNER_A, 42)).isZero();

        assertThat(sync.exists(keys.lock(), keys.fence())).isZero();
    }

    private long acquire(String owner) throws Exception {
        List<Object> reply = scripts.array(LockScript.ACQUIRE, new String[] {keys.lock(), keys.fence()}, owner, "60000",
                Long.toString(Duration.ofDays(1).toMillis())).get(5, TimeUnit.SECONDS);
        assertThat(reply.get(0)).isEqualTo(1L);
        return (Long) reply.get(1);
    }

    private void release(String owner) throws Exception {
        scripts.integer(LockScript.RELEASE, new String[] {keys.lock(), keys.channel()}, owner, "m").get(5, TimeUnit.SECONDS);
    }

    private long raise(String owner, long token) throws Exception {
        return scripts.integer(LockScript.RAISE_FENCE, new String[] {keys.lock(), keys.fence()}, owner, Long.toString(token),
                Long.toString(Duration.ofDays(1).toMillis())).get(5, TimeUnit.SECONDS);
    }
}
