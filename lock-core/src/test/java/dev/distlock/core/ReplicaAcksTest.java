package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** LockClientOptions.replicaAcks: a new grant waits for replicas (Redis WAIT) or is given back. */
class ReplicaAcksTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final LockClientOptions ONE_REPLICA =
            LockClientOptions.builder().replicaAcks(1, Duration.ofMillis(500)).build();

    @Test
    void aGrantAcknowledgedByAReplicaIsKept() throws Exception {
        RedisServer master = redis.startAnother();
        RedisServer replica = redis.startAnother("--replicaof", "127.0.0.1", Integer.toString(master.port()));
        await().atMost(Duration.ofSeconds(15))
                .until(() -> infoReplication(master).contains("state=online"));
        // a generous acknowledgement time-out: on a loaded machine the replica may take a while to answer WAIT
        LockClientOptions patient = LockClientOptions.builder()
                .replicaAcks(1, Duration.ofSeconds(5))
                .build();
        try (LockClient client = LockClient.create(RedisURI.create(master.uri()), patient)) {
            RedisLock lock = client.getLock(Names.fresh("acked"));
            assertThat(lock.tryLock(Duration.ofSeconds(10))).isTrue();
            assertThat(replica.command("EXISTS", "lock:{" + lock.getKey() + "}"))
                    .as("on the replica")
                    .isEqualTo(":1");
            lock.unlock();
        }
    }

    @Test
    void aGrantNoReplicaAcknowledgedIsGivenBackWithAClearError() {
        RedisServer alone = redis.startAnother();
        try (LockClient client = LockClient.create(RedisURI.create(alone.uri()), ONE_REPLICA)) {
            RedisLock lock = client.getLock(Names.fresh("unacked"));
            assertThatThrownBy(lock::tryLock)
                    .isInstanceOf(LockException.class)
                    .hasMessageContaining("only 0 of 1 replica(s) acknowledged")
                    .hasMessageContaining("given back");
            assertThat(lock.isLocked()).isFalse();
            assertThat(lock.isHeldByCurrentThread()).isFalse();
        }
    }

    @Test
    void negativeReplicaCountIsRejected() {
        assertThatThrownBy(() -> LockClientOptions.builder().replicaAcks(-1, Duration.ofMillis(100)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("replicaAcks");
    }

    private static String infoReplication(RedisServer server) {
        try (RedisProbe probe = RedisProbe.connect(server)) {
            return probe.sync().info("replication");
        }
    }
}
