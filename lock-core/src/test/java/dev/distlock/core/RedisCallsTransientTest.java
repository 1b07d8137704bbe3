package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.redis.RedisFailures;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import org.junit.jupiter.api.Test;

/**
 * Which failures a call retries (every script is safe to run twice) and which it reports at once.
 * A give-back in the background once gave up on "Connection disconnected", leaving a RedLock node's
 * grant for the whole lease (LostReplyKindsTest, under load).
 */
class RedisCallsTransientTest {

    @Test
    void aConnectionThatDroppedWithTheCommandInFlightIsWorthAnotherTry() {
        assertThat(RedisFailures.isTransient(new RedisException("Connection disconnected")))
                .isTrue();
        assertThat(RedisFailures.isTransient(new RedisException("Connection closed")))
                .isTrue();
        assertThat(RedisFailures.isTransient(new RedisException("Connection reset by peer")))
                .isTrue();
        assertThat(RedisFailures.isTransient(new RedisException("Currently not connected. Commands are rejected.")))
                .isTrue();
    }

    @Test
    void refusalsForNowAreTransientAndRealErrorsAreNot() {
        assertThat(RedisFailures.isTransient(new RedisCommandExecutionException("LOADING Redis is loading")))
                .isTrue();
        assertThat(RedisFailures.isTransient(new RedisCommandExecutionException("NOPERM this user has no permissions")))
                .isFalse();
        assertThat(RedisFailures.isTransient(new RedisCommandExecutionException("ERR wrong number of arguments")))
                .isFalse();
    }
}
