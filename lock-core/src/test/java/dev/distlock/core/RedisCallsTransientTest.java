package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.redis.RedisCalls;
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
        assertThat(RedisCalls.isTransient(new RedisException("Connection disconnected")))
                .isTrue();
        assertThat(RedisCalls.isTransient(new RedisException("Connection closed")))
                .isTrue();
        assertThat(RedisCalls.isTransient(new RedisException("Connection reset by peer")))
                .isTrue();
        assertThat(RedisCalls.isTransient(new RedisException("Currently not connected. Commands are rejected.")))
                .isTrue();
    }

    @Test
    void refusalsForNowAreTransientAndRealErrorsAreNot() {
        assertThat(RedisCalls.isTransient(new RedisCommandExecutionException("LOADING Redis is loading")))
                .isTrue();
        assertThat(RedisCalls.isTransient(new RedisCommandExecutionException("NOPERM this user has no permissions")))
                .isFalse();
        assertThat(RedisCalls.isTransient(new RedisCommandExecutionException("ERR wrong number of arguments")))
                .isFalse();
    }
}
