package dev.distlock.core.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;

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
}
