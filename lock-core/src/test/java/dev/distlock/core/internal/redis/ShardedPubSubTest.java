package dev.distlock.core.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Which servers get sharded pub/sub: Redis 7.0 and later. */
class ShardedPubSubTest {

    @Test
    void shardedPubSubFromRedis7() {
        assertThat(ShardedPubSub.supports("6.2.14")).isFalse();
        assertThat(ShardedPubSub.supports("6.9.242")).isFalse();
        assertThat(ShardedPubSub.supports("7.0.0")).isTrue();
        assertThat(ShardedPubSub.supports("7.0.15")).isTrue();
        assertThat(ShardedPubSub.supports("7.2.4")).isTrue();
        assertThat(ShardedPubSub.supports("10.0.0")).isTrue();
        assertThat(ShardedPubSub.supports("8.0-m01")).isTrue();
    }

    @Test
    void versionFromInfoServer() {
        assertThat(ShardedPubSub.version("# Server\r\nredis_version:7.0.15\r\nredis_git_sha1:0\r\n"))
                .isEqualTo("7.0.15");
    }

    @Test
    void aMasterThatDoesNotAnswerIsLeftOutOfTheChoice() {
        long deadline = System.nanoTime() + 5_000_000_000L;
        CompletableFuture<String> down =
                CompletableFuture.failedFuture(new IllegalStateException("Connection refused"));
        assertThat(ShardedPubSub.oldestAnswered(List.of(info("7.2.4"), down, info("7.0.15")), deadline))
                .isEqualTo("7.0.15");
        assertThat(ShardedPubSub.oldestAnswered(List.of(info("7.0.15"), info("6.2.14")), deadline))
                .isEqualTo("6.2.14");
        assertThatThrownBy(() -> ShardedPubSub.oldestAnswered(List.of(down), deadline))
                .hasMessageContaining("Connection refused");
        assertThatThrownBy(() -> ShardedPubSub.oldestAnswered(List.of(new CompletableFuture<>()), System.nanoTime()))
                .hasMessageContaining("did not tell its version");
    }

    private static CompletableFuture<String> info(String version) {
        return CompletableFuture.completedFuture("# Server\r\nredis_version:" + version + "\r\n");
    }
}
