package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.script.LockScript;
import io.lettuce.core.RedisCommandExecutionException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
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

        assertThat(renew(A, "g1", 1_000)).isZero();

        assertThat(sync.scriptExists(LockScript.RENEW.sha1())).containsExactly(true);
    }

    @Test
    void recoversAfterScriptFlush() throws Exception {
        assertThat(renew(A, "g1", 1_000)).isZero();
        sync.scriptFlush();

        assertThat(renew(A, "g1", 1_000)).isZero();
        assertThat(renew(A, "g1", 1_000)).isZero();
    }

    @Test
    void scriptWithPreludesRunsAfterScriptFlush() throws Exception {
        grant(A, 10_000, "g1");
        sync.scriptFlush();

        assertThat(acquire(A, 10_000, 1, "g1").get(2)).isEqualTo(2L);
    }

    @Test
    void shaMatchesTheOneRedisComputesForTheBodyOfEveryScript() throws Exception {
        List<LockScript> all = allScripts();

        assertThat(all).hasSize(14);
        for (LockScript script : all) {
            assertThat(sync.scriptLoad(script.body())).as(script.name()).isEqualTo(script.sha1());
        }
    }

    @Test
    void passesOnErrorsOtherThanNoscript() {
        sync.set(keys.lock(), "not a hash");

        assertThatThrownBy(() -> renew(A, "g1", 1_000))
                .isInstanceOf(ExecutionException.class)
                .cause()
                .isInstanceOf(RedisCommandExecutionException.class)
                .hasMessageContaining("WRONGTYPE");
    }

    /** Every script LockScript declares, so a new one cannot be left out. */
    static List<LockScript> allScripts() throws IllegalAccessException {
        List<LockScript> all = new ArrayList<>();
        for (Field field : LockScript.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getType() == LockScript.class) {
                all.add((LockScript) field.get(null));
            }
        }
        return all;
    }
}
