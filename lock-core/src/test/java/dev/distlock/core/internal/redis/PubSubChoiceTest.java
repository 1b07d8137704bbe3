package dev.distlock.core.internal.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.distlock.core.PubSubMode;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * How {@link PubSubMode} chooses the wake-ups' channel kind, given the topology and the oldest master's
 * version (without a server: the version is handed in), and the start-up line that says what chose it.
 * The same choices on real servers: ClusterShardedPubSubTest, PubSubModeTest.
 */
class PubSubChoiceTest {

    private final Logger logger = (Logger) LoggerFactory.getLogger(ShardedPubSub.class);
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();
    private final AtomicInteger asked = new AtomicInteger();

    @BeforeEach
    void capture() {
        appender.start();
        logger.addAppender(appender);
    }

    @AfterEach
    void release() {
        logger.detachAppender(appender);
        System.clearProperty(ShardedPubSub.PROPERTY);
    }

    @Test
    void autoIsShardedOnACluster7AndPlainOnAnOlderClusterOrOffCluster() {
        assertThat(ShardedPubSub.choose(PubSubMode.AUTO, true, version("7.0.15")))
                .isTrue();
        assertThat(line()).contains("sharded pub/sub (SPUBLISH, SSUBSCRIBE)").contains("chosen by PubSubMode.AUTO");

        assertThat(ShardedPubSub.choose(PubSubMode.AUTO, true, version("6.2.14")))
                .isFalse();
        assertThat(line())
                .contains("PUBLISH, broadcast")
                .contains("chosen by PubSubMode.AUTO")
                .contains("6.2.14");

        assertThat(ShardedPubSub.choose(PubSubMode.AUTO, false, version("7.0.15")))
                .isFalse();
        assertThat(line())
                .contains("PUBLISH and SUBSCRIBE")
                .contains("chosen by PubSubMode.AUTO, as Redis is not a Cluster");
        assertThat(asked).as("versions asked for").hasValue(2);
    }

    @Test
    void plainIsPlainEverywhereWithoutAskingTheVersion() {
        assertThat(ShardedPubSub.choose(PubSubMode.PLAIN, true, version("7.0.15")))
                .isFalse();
        assertThat(line()).contains("PUBLISH, broadcast").contains("set in the options (PubSubMode.PLAIN)");
        assertThat(ShardedPubSub.choose(PubSubMode.PLAIN, false, version("7.0.15")))
                .isFalse();
        assertThat(asked).hasValue(0);
    }

    @Test
    void shardedIsShardedOnRedis7ClusterOrNot() {
        assertThat(ShardedPubSub.choose(PubSubMode.SHARDED, true, version("7.2.4")))
                .isTrue();
        assertThat(line()).contains("sharded pub/sub").contains("set in the options (PubSubMode.SHARDED)");
        assertThat(ShardedPubSub.choose(PubSubMode.SHARDED, false, version("7.0.15")))
                .isTrue();
        assertThat(line()).contains("sharded pub/sub").contains("set in the options (PubSubMode.SHARDED)");
    }

    @Test
    void shardedOnRedisOlderThan7IsRefusedNamingTheVersionAndTheFix() {
        assertThatThrownBy(() -> ShardedPubSub.choose(PubSubMode.SHARDED, true, version("6.2.14")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PubSubMode.SHARDED")
                .hasMessageContaining("a master of the Cluster runs Redis 6.2.14")
                .hasMessageContaining("use PubSubMode.AUTO")
                .hasMessageContaining("distlock.pub-sub=auto or plain");
        assertThatThrownBy(() -> ShardedPubSub.choose(PubSubMode.SHARDED, false, version("6.0.9")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the server runs Redis 6.0.9");
    }

    @Test
    void anUnreadableVersionKeepsAutoPlainAndTrustsSharded() {
        Supplier<String> unreadable = () -> {
            throw new IllegalStateException("NOPERM this user has no permissions to run the 'info' command");
        };
        assertThat(ShardedPubSub.choose(PubSubMode.AUTO, true, unreadable)).isFalse();
        assertThat(line()).contains("chosen by PubSubMode.AUTO").contains("NOPERM");
        assertThat(ShardedPubSub.choose(PubSubMode.SHARDED, true, unreadable)).isTrue();
        assertThat(line())
                .contains("set in the options (PubSubMode.SHARDED), unchecked")
                .contains("NOPERM");
    }

    @Test
    void theDeprecatedPropertyStillMakesAutoPlainOnAClusterAndSaysItIsDeprecated() {
        System.setProperty(ShardedPubSub.PROPERTY, "false");
        assertThat(ShardedPubSub.choose(PubSubMode.AUTO, true, version("7.0.15")))
                .isFalse();
        assertThat(line())
                .contains("-Ddistlock.sharded-pubsub=false, which is deprecated")
                .contains("PubSubMode.PLAIN");
        // an explicit option wins over it
        assertThat(ShardedPubSub.choose(PubSubMode.SHARDED, true, version("7.0.15")))
                .isTrue();
    }

    private Supplier<String> version(String version) {
        return () -> {
            asked.incrementAndGet();
            return version;
        };
    }

    /** The last line logged. */
    private String line() {
        List<ILoggingEvent> events = appender.list;
        assertThat(events).isNotEmpty();
        return events.get(events.size() - 1).getFormattedMessage();
    }
}
