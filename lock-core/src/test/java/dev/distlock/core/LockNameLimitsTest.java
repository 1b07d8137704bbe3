package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Over-long names and names with control characters are refused before any Redis call, for every lock kind. */
class LockNameLimitsTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void namesUpToTheDefaultLimitAreAcceptedAndLongerOnesRejectedAbbreviated() {
        try (LockClient client =
                LockClient.create(RedisURI.create(redis.server().uri()))) {
            assertThat(client.options().maxKeyLength())
                    .isEqualTo(LockClientOptions.DEFAULT_MAX_KEY_LENGTH)
                    .isEqualTo(1024);
            RedisLock atLimit = client.getLock("k".repeat(1024));
            assertThat(tryOnce(atLimit)).isTrue();
            atLimit.unlock();

            String tooLong = "x".repeat(1025);
            assertThatThrownBy(() -> client.getLock(tooLong))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("lock name '" + "x".repeat(40) + "...' is 1025 characters long, over the limit of 1024"
                            + " (LockClientOptions.maxKeyLength)");
            assertThatThrownBy(() -> client.getFairLock(tooLong)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.getReadWriteLock(tooLong)).isInstanceOf(IllegalArgumentException.class);
            assertThatThrownBy(() -> client.getMultiLock("ok", tooLong)).isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void theLimitIsAnOption() {
        LockClientOptions options = LockClientOptions.builder().maxKeyLength(8).build();
        try (LockClient client =
                LockClient.create(RedisURI.create(redis.server().uri()), options)) {
            assertThat(tryOnce(client.getLock("12345678"))).isTrue();
            assertThatThrownBy(() -> client.getLock("123456789")).hasMessageContaining("over the limit of 8");
        }
        assertThat(options.requireValidLockName("12345678"))
                .as("the options check a name without a client, as the client does")
                .isEqualTo("12345678");
        assertThatThrownBy(() -> options.requireValidLockName("123456789"))
                .isInstanceOf(LockNameException.class)
                .hasMessageContaining("over the limit of 8");
        assertThatThrownBy(() -> options.requireValidLockName("}x")).hasMessageContaining("must not start with '}'");
        assertThatThrownBy(() -> options.requireValidLockName("a\u202Eb"))
                .hasMessageContaining("invisible or bidi control character");
        assertThatThrownBy(() -> LockClientOptions.builder().maxKeyLength(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxKeyLength must be at least 1");
    }

    @ParameterizedTest
    @ValueSource(strings = {"order\n42", "order\r\nSET x 1", "order\u0000", "tab\there", "del\u007f", "c1\u0085"})
    void controlCharactersAreRejectedAndEscapedInTheMessage(String name) {
        try (LockClient client =
                LockClient.create(RedisURI.create(redis.server().uri()))) {
            for (Runnable call : List.<Runnable>of(
                    () -> client.getLock(name),
                    () -> client.getFairLock(name),
                    () -> client.getReadWriteLock(name),
                    () -> client.getMultiLock("ok", name))) {
                assertThatThrownBy(call::run)
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("contains the control character U+")
                        .hasMessageContaining("must be printable")
                        .hasMessageContaining("\\u00")
                        .satisfies(e -> assertThat(e.getMessage()).doesNotContainPattern("\\p{Cntrl}"));
            }
        }
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"}", "}{", "}order:1"})
    void aNameStartingWithAClosingBraceIsRejectedBecauseItWouldEmptyTheClusterHashTag(String name) {
        try (LockClient client =
                LockClient.create(io.lettuce.core.RedisURI.create(redis.server().uri()))) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> client.getLock(name))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("must not start with '}'");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"größe:42", "注文:42", "\uD83D\uDD12:1"})
    void aNameOutsideAsciiLocksTheKeyItsUtf8BytesSpell(String name) {
        // The lock connection writes strings straight into the command (ExactUtf8Codec): its byte
        // count must match the bytes written exactly, or the command would be garbled on the wire.
        RedisClient plain = RedisClient.create(RedisURI.create(redis.server().uri()));
        try (LockClient client =
                        LockClient.create(RedisURI.create(redis.server().uri()));
                LockClient other =
                        LockClient.create(RedisURI.create(redis.server().uri()));
                StatefulRedisConnection<byte[], byte[]> bytes = plain.connect(ByteArrayCodec.INSTANCE)) {
            RedisLock lock = client.getLock(name);
            assertThat(tryOnce(lock)).isTrue();
            byte[] key = ("lock:{" + name + "}").getBytes(StandardCharsets.UTF_8);
            assertThat(bytes.sync().hexists(key, "~token".getBytes(StandardCharsets.UTF_8)))
                    .as("lock hash under the UTF-8 key")
                    .isTrue();
            assertThat(tryOnce(other.getLock(name)))
                    .as("the same name from another client")
                    .isFalse();
            lock.unlock();
            assertThat(bytes.sync().exists(key)).isZero();
        } finally {
            ClientShutdown.shutdown(plain);
        }
    }
}
