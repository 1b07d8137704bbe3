package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.testsupport.IntegrationTest;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The script-cost harness against a real Redis: it runs every subject, leaves nothing behind, refuses
 * to time a script that did not take or release the lock, and explains a bad setting.
 */
@IntegrationTest
class ScriptCostsTest {

    @Test
    void measuresEverySubjectAndLeavesNoKeysBehind() {
        try (RedisServer redis = RedisServer.start()) {
            Map<String, List<ScriptCosts.Cost>> costs = ScriptCosts.measure(redis.host(), redis.port(), 2, 2_000);

            assertThat(costs.keySet()).containsExactly("scripts", "steps", "number", "layout");
            assertThat(costs.get("scripts")).hasSize(2);
            assertThat(costs.get("steps")).hasSize(5);
            assertThat(costs.get("number")).hasSize(3);
            costs.values().stream()
                    .flatMap(List::stream)
                    .forEach(c ->
                            assertThat(c.nanos().n()).as(c.subject().name()).isEqualTo(2));
            assertThat(redis.query("DBSIZE"))
                    .as("every subject deletes the keys it wrote")
                    .isEqualTo(":0");

            String md = ScriptCostTable.markdown(costs, 2, 2_000, "7.0");
            assertThat(md)
                    .contains("| raw floor: its two scripts")
                    .contains("| distlock: acquire.lua and release.lua")
                    .contains("fencing token")
                    .contains("sum of these commands alone")
                    .contains("a fencing-token-sized Lua number passed to redis.call")
                    .contains("| making a token's digits in Lua")
                    .contains("| another layout, not distlock's");
        }
    }

    @Test
    void aScriptThatRefusesIsAnErrorNotAFastFigure() {
        try (RedisServer redis = RedisServer.start()) {
            ScriptCosts.Subject distlock = ScriptCostSubjects.scripts().get(1);
            // Another owner holds one of the keys the passes take turns over.
            redis.query("HSET", "lock:{cost-5}", "someone-else:1", "1", "~req", "x");
            RedisClient client = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                assertThatThrownBy(() ->
                                connection.sync().eval(distlock.lua(), ScriptOutputType.INTEGER, new String[0], "100"))
                        .hasMessageContaining("the take script refused a free key");
            } finally {
                ClientShutdown.shutdown(client);
            }
        }
    }

    /** The other layout is timed for the same job as distlock's path, so it must do that job. */
    @Test
    void theOtherLayoutExcludesFencesAnswersARepeatedReleaseAndReportsARunOutLease() {
        try (RedisServer redis = RedisServer.start()) {
            RedisClient client = RedisClient.create(RedisURI.create(redis.host(), redis.port()));
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                RedisCommands<String, String> sync = connection.sync();
                String[] key = {"lock:{layout}"};

                assertThat(take(sync, key, "a", "1")).isEqualTo(1L);
                long first = Long.parseLong(sync.hget(key[0], "token"));
                assertThat(take(sync, key, "b", "2")).as("held by a").isEqualTo(0L);
                assertThat(drop(sync, key, "b", "2")).as("b holds nothing").isEqualTo(-1L);
                assertThat(drop(sync, key, "a", "1")).isEqualTo(1L);
                assertThat(drop(sync, key, "a", "1"))
                        .as("the same release again")
                        .isEqualTo(1L);

                assertThat(take(sync, key, "b", "2")).isEqualTo(1L);
                long second = Long.parseLong(sync.hget(key[0], "token"));
                assertThat(second)
                        .as("past the first grant's reserved block")
                        .isGreaterThan(first + Long.parseLong(DistlockScriptCall.TOKEN_BLOCK) - 1);
                assertThat(sync.pttl(key[0])).as("the hash expires some day").isPositive();

                // with the lease a field, nothing expires the hold: the release must see that it ran out
                sync.hset(key[0], "until", "1");
                assertThat(drop(sync, key, "b", "2"))
                        .as("a hold whose lease ran out is not released as if it had not")
                        .isEqualTo(-1L);
            } finally {
                ClientShutdown.shutdown(client);
            }
        }
    }

    private static Long take(RedisCommands<String, String> sync, String[] key, String owner, String grant) {
        return sync.eval(
                ScriptCostSubjects.ONE_HASH_TAKE,
                ScriptOutputType.INTEGER,
                key,
                owner,
                DistlockScriptCall.LEASE_MS,
                grant,
                DistlockScriptCall.TOKEN_BLOCK,
                DistlockScriptCall.FENCE_TTL_MS);
    }

    private static Long drop(RedisCommands<String, String> sync, String[] key, String owner, String grant) {
        return sync.eval(ScriptCostSubjects.ONE_HASH_DROP, ScriptOutputType.INTEGER, key, owner, grant);
    }

    @Test
    void aBadSettingIsExplainedBeforeRedisStarts() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream errs = new PrintStream(err, true, StandardCharsets.UTF_8);

        assertThat(ScriptCosts.main(new String[] {"rounds=0"}, System.out, errs))
                .isEqualTo(2);
        assertThat(ScriptCosts.main(new String[] {"passes=10"}, System.out, errs))
                .isEqualTo(2);

        assertThat(err.toString(StandardCharsets.UTF_8))
                .contains("rounds=0 is not a positive whole number; give one, for example rounds=5")
                .contains("unknown setting 'passes=10'; it takes rounds=N and pairs=N");
    }
}
