package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.engine.FairKind;
import dev.distlock.core.internal.engine.LockKind;
import dev.distlock.core.internal.engine.ReadWriteKind;
import dev.distlock.core.internal.engine.ReentrantKind;
import dev.distlock.core.internal.engine.ScriptArgs;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.internal.redis.script.ScriptRunner;
import dev.distlock.testsupport.FaultRelay;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * ScriptRunner against a real Redis: EVALSHA first, one EVAL after NOSCRIPT, other errors passed on,
 * and a cancelled call not sent again by Lettuce after a reconnect.
 */
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

        assertThat(all).hasSize(20);
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

    /**
     * Lettuce sends a command again after a reconnect when its reply never came. A call its caller gave
     * up on must not: cancelling the future ScriptRunner returned cancels the command behind it. The
     * control (not cancelled) shows the same call, lost the same way, is sent again and grants.
     */
    @ParameterizedTest(name = "cancelled: {0}")
    @ValueSource(booleans = {true, false})
    void aCallCancelledWhileUnansweredIsNotSentAgainAfterAReconnect(boolean cancel) throws Exception {
        sentAgainAfterAReconnect(
                cancel,
                runner -> runner.array(
                        LockScript.ACQUIRE,
                        new String[] {keys.lock(), keys.fence()},
                        A,
                        "10000",
                        Long.toString(FENCE_TTL_MS),
                        "0",
                        "g1",
                        "1",
                        "0"));
    }

    /**
     * As above, through each kind's acquire, which may map the reply: the cancel must still reach the
     * command. A read/write acquire once mapped it with thenApply, which kept the cancel from it: under
     * connection faults, an async read cancelled as it was sent was sent again after its give-back and
     * held the lock for its whole lease, for nobody.
     */
    @ParameterizedTest(name = "{0}, cancelled: {1}")
    @MethodSource("kindsCancelledOrNot")
    void anAcquireOfEveryKindCancelledWhileUnansweredIsNotSentAgainAfterAReconnect(String kind, boolean cancel)
            throws Exception {
        LockKind lockKind = switch (kind) {
            case "reentrant" -> ReentrantKind.INSTANCE;
            case "fair" -> FairKind.INSTANCE;
            case "read" -> ReadWriteKind.READ;
            case "write" -> ReadWriteKind.WRITE;
            default -> throw new IllegalArgumentException(kind);
        };
        sentAgainAfterAReconnect(
                cancel,
                runner -> lockKind.acquire(
                        runner, keys, new ScriptArgs.Acquire(A, 10_000, FENCE_TTL_MS, 0, "g1", 1_000, 1)));
    }

    static Stream<Arguments> kindsCancelledOrNot() {
        return Stream.of("reentrant", "fair", "read", "write")
                .flatMap(kind -> Stream.of(Arguments.of(kind, true), Arguments.of(kind, false)));
    }

    /**
     * Makes {@code call} through a relay that holds it, cancels it or not, drops the connection, and checks
     * that the grant it asks for is made once Lettuce reconnected if and only if it was not cancelled.
     */
    private void sentAgainAfterAReconnect(boolean cancel, Function<ScriptRunner, CompletableFuture<List<Object>>> call)
            throws Exception {
        try (FaultRelay relay = FaultRelay.to(redis.server())) {
            RedisClient client = RedisClient.create(relay.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                ScriptRunner runner = new ScriptRunner(connection.async());
                for (LockScript script : allScripts()) {
                    connection.sync().scriptLoad(script.body());
                }
                relay.blackHole(); // the call reaches neither Redis nor an answer

                CompletableFuture<List<Object>> sent = call.apply(runner);
                // written to the socket and held by the relay: what the reconnect would send again
                await().atMost(Duration.ofSeconds(10)).until(() -> relay.pendingRequestBytes() > 0);
                if (cancel) {
                    assertThat(sent.cancel(true)).isTrue();
                }
                relay.drop(FaultRelay.Drop.FIN); // what the relay held is lost; Lettuce reconnects

                // a command sent after the reconnect, and answered, comes after any command sent again
                assertThat(connection.async().ping().get(10, TimeUnit.SECONDS)).isEqualTo("PONG");
                if (cancel) {
                    assertThat(sent).isCancelled();
                    assertThat(sync.exists(keys.lock()))
                            .as("the cancelled grant in Redis")
                            .isZero();
                } else {
                    assertThat(sent.get(10, TimeUnit.SECONDS).get(0)).isEqualTo(1L);
                    assertThat(sync.exists(keys.lock()))
                            .as("the grant sent again")
                            .isOne();
                }
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    /**
     * A connection closed inside a reply: Lettuce sends the call again after the reconnect, into the output
     * it had begun to fill from the lost reply. The array a script answers is read afresh from the new
     * reply. The control, Lettuce's own array output for EVALSHA, shows the fault happened: it puts the new
     * reply inside what it kept of the old one.
     */
    @ParameterizedTest(name = "cut after {0} bytes, Lettuce's own output: {1}")
    @CsvSource({"4, false", "8, false", "12, false", "27, false", "8, true"})
    void anArrayReplyCutByAClosedConnectionIsReadAfreshWhenLettuceSendsTheCallAgain(int cut, boolean lettuceOutput)
            throws Exception {
        try (FaultRelay relay = FaultRelay.to(redis.server())) {
            RedisClient client = RedisClient.create(relay.uri());
            try (StatefulRedisConnection<String, String> connection = client.connect()) {
                ScriptRunner runner = new ScriptRunner(connection.async());
                connection.sync().scriptLoad(LockScript.ACQUIRE.body());
                String[] keys = {this.keys.lock(), this.keys.fence()};
                String[] args = {A, "10000", Long.toString(FENCE_TTL_MS), "0", "g1", "1", "0"};
                relay.holdReplies();

                CompletableFuture<List<Object>> call = lettuceOutput
                        ? connection
                                .async()
                                .<List<Object>>evalsha(LockScript.ACQUIRE.sha1(), ScriptOutputType.MULTI, keys, args)
                                .toCompletableFuture()
                        : runner.array(LockScript.ACQUIRE, keys, args);
                // the reply, {1, token, 1} (about 30 bytes), is kept back whole
                await().atMost(Duration.ofSeconds(10)).until(() -> relay.pendingReplyBytes() > cut);
                relay.releaseReplyBytes(cut);
                relay.drop(FaultRelay.Drop.FIN); // the rest is lost; Lettuce reconnects and sends the call again

                List<Object> reply = call.get(10, TimeUnit.SECONDS);
                long token = Long.parseLong(sync.hget(this.keys.lock(), "~token"));
                if (lettuceOutput) {
                    assertThat(reply)
                            .as("Lettuce's output, the new reply inside the old one's first element")
                            .containsExactly(1L, List.of(1L), token, 1L);
                } else {
                    assertThat(reply).containsExactly(1L, token, 1L);
                }
            } finally {
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        }
    }

    /** Every script LockScript declares, so a new one cannot be left out. */
    /** SCRIPT LOADs every script {@code which} picks (all: every later call is one EVALSHA). */
    static void cacheScripts(
            io.lettuce.core.api.sync.RedisCommands<String, String> redis,
            java.util.function.Predicate<LockScript> which)
            throws IllegalAccessException {
        for (LockScript script : allScripts()) {
            if (which.test(script)) {
                redis.scriptLoad(script.body());
            }
        }
    }

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
