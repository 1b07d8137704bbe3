package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.script.LockScript;
import dev.distlock.core.script.ScriptRunner;
import io.lettuce.core.RedisCommandExecutionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** ScriptRunner against a real Redis: EVALSHA first, one EVAL after NOSCRIPT, other errors passed on. */
class ScriptRunnerTest extends ScriptTestSupport {

    ScriptRunnerTest() {
        super("runner");
    }

    @Test
    void runsAScriptRedisHasNeverSeenAndCachesItForEvalsha() throws Exception {
        sync.scriptFlush();
        assertThat(sync.scriptExists(LockScript.RENEW.sha1())).containsExactly(false);

        assertThat(renew()).isZero();

        assertThat(sync.scriptExists(LockScript.RENEW.sha1())).containsExactly(true);
    }

    @Test
    void recoversAfterScriptFlush() throws Exception {
        assertThat(renew()).isZero();
        sync.scriptFlush();

        assertThat(renew()).isZero();
        assertThat(renew()).isZero();
    }

    @Test
    void shaMatchesTheOneRedisComputesForTheBody() {
        for (LockScript script : new LockScript[] {LockScript.ACQUIRE, LockScript.RELEASE, LockScript.RENEW, LockScript.FORCE_RELEASE}) {
            assertThat(sync.scriptLoad(script.body())).as(script.name()).isEqualTo(script.sha1());
        }
    }

    @Test
    void passesOnErrorsOtherThanNoscript() {
        sync.set(keys.lock(), "not a hash");

        assertThatThrownBy(() -> renew())
                .isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageContaining("WRONGTYPE");
    }

    private long renew() throws Exception {
        return scripts.integer(LockScript.RENEW, new String[] {keys.lock()}, "owner", "1000").get(5, TimeUnit.SECONDS);
    }
}
