package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.script.LockScript;
import dev.distlock.core.script.ScriptRunner;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** ScriptRunner against a real Redis: EVALSHA first, one EVAL after NOSCRIPT, other errors passed on. */
class ScriptRunnerTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private RedisProbe probe;
    private RedisCommands<String, String> sync;
    private ScriptRunner scripts;
    private LockKeys keys;

    @BeforeEach
    void connect() {
        probe = RedisProbe.connect(redis.server());
        sync = probe.sync();
        scripts = probe.scripts();
        keys = LockKeys.of("lock:", Names.fresh("runner"));
    }

    @AfterEach
    void close() {
        probe.close();
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
