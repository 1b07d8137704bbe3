package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.redis.script.LockScript;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Every script's sharded variant publishes with SPUBLISH wherever the script publishes, and nothing else changes. */
class ShardedScriptsTest {

    private static final Pattern PUBLISH_CALL = Pattern.compile("redis\\.p?call\\(\\s*['\"]PUBLISH['\"]");
    private static final Pattern SPUBLISH_CALL = Pattern.compile("redis\\.p?call\\(\\s*['\"]SPUBLISH['\"]");

    @Test
    void everyPublishOfEveryScriptBecomesAnSpublish() throws Exception {
        int publishing = 0;
        for (LockScript script : ScriptRunnerTest.allScripts()) {
            LockScript sharded = script.sharded();
            long publishes = PUBLISH_CALL.matcher(script.body()).results().count();
            assertThat(PUBLISH_CALL.matcher(sharded.body()).results())
                    .as(script.name())
                    .isEmpty();
            assertThat(SPUBLISH_CALL.matcher(sharded.body()).results().count())
                    .as(script.name())
                    .isEqualTo(publishes);
            assertThat(sharded.body().replace("'SPUBLISH'", "'PUBLISH'")).isEqualTo(script.body());
            assertThat(sharded.sharded()).isSameAs(sharded);
            if (publishes > 0) {
                publishing++;
                assertThat(sharded.sha1()).isNotEqualTo(script.sha1());
            } else {
                assertThat(sharded).isSameAs(script);
            }
        }
        assertThat(publishing).as("scripts that publish a wake-up").isGreaterThanOrEqualTo(7);
    }
}
