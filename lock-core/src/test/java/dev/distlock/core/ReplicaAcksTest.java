package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.Contenders;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** LockClientOptions.replicaAcks: a new grant waits for replicas (Redis WAIT) or is given back. */
@SlowTest
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

    /**
     * A fair release grants the lock to the next waiter itself; with replica acknowledgements asked for,
     * a waiter of the releasing client is not handed that grant in-process but takes it up with its own
     * attempt, which waits for the replica as after any new grant.
     */
    @Test
    void aFairGrantMadeByAReleaseIsAcknowledgedBeforeItsWaiterHoldsIt() throws Exception {
        RedisServer master = redis.startAnother();
        redis.startAnother("--replicaof", "127.0.0.1", Integer.toString(master.port()));
        await().atMost(Duration.ofSeconds(15))
                .until(() -> infoReplication(master).contains("state=online"));
        LockClientOptions patient = LockClientOptions.builder()
                .replicaAcks(1, Duration.ofSeconds(5))
                .build();
        try (LockClient client = LockClient.create(RedisURI.create(master.uri()), patient);
                RedisProbe probe = RedisProbe.connect(master)) {
            String name = Names.fresh("acked-fair");
            RedisLock held = client.getFairLock(name);
            held.lock();
            OtherThread<Boolean> waiter =
                    Contenders.takesAndReleases(() -> client.getFairLock(name), Duration.ofSeconds(20));
            await().atMost(Duration.ofSeconds(10)).until(() -> probe.sync().llen("lock:{" + name + "}:queue") == 1);
            long waitsBefore = probe.commandRuns("wait");

            held.unlock();

            assertThat(waiter.get()).isTrue();
            assertThat(probe.commandRuns("wait") - waitsBefore)
                    .as("the waiter's grant was waited for on the replica")
                    .isEqualTo(1);
        }
    }

    /**
     * With replica acknowledgements the try a caller waits on is the grant followed by WAIT; cancelling it
     * must also stop the grant's retries while Redis refuses it for now (here READONLY: the master was
     * turned into a replica for a while, as in a failover). Before, a retry kept going after the cancel had
     * given the grant id back, and took the lock for nobody once Redis took writes again: every other caller
     * was shut out for a whole lease.
     */
    @Test
    void cancellingAnAsyncTryWhileRedisRefusesItForNowStopsItsRetries() throws Exception {
        RedisServer master = redis.startAnother();
        redis.startAnother("--replicaof", "127.0.0.1", Integer.toString(master.port()));
        RedisServer elsewhere = redis.startAnother();
        await().atMost(Duration.ofSeconds(15))
                .until(() -> infoReplication(master).contains("state=online"));
        LockClientOptions options = LockClientOptions.builder()
                .replicaAcks(1, Duration.ofSeconds(5))
                .operationTimeout(Duration.ofSeconds(20)) // retries would go on well past the refusals
                .build();
        String name = Names.fresh("cancelled-while-refused");
        try (LockClient client = LockClient.create(RedisURI.create(master.uri()), options)) {
            RedisLock lock = client.getLock(name);
            master.command("REPLICAOF", "127.0.0.1", Integer.toString(elsewhere.port()));
            long refusedBefore = readOnlyErrors(master);

            CompletableFuture<?> trying =
                    lock.tryLockAsync(Duration.ofSeconds(30)).toCompletableFuture();
            await().atMost(Duration.ofSeconds(10)).until(() -> readOnlyErrors(master) > refusedBefore);
            trying.cancel(true);
            master.command("REPLICAOF", "NO", "ONE");

            // the retries' back-off is well under a second: any still going would have taken the lock by now
            await().during(Duration.ofMillis(1500))
                    .atMost(Duration.ofSeconds(5))
                    .until(() -> master.command("EXISTS", "lock:{" + name + "}").equals(":0"));
        }
        // free for the next caller (one that does not wait for the replica, which is still catching up)
        try (LockClient next = LockClient.create(RedisURI.create(master.uri()))) {
            assertThat(tryOnce(next.getLock(name))).isTrue();
            next.getLock(name).unlock();
        }
    }

    /** How many commands this server has refused with READONLY since it started. */
    private static long readOnlyErrors(RedisServer server) {
        try (RedisProbe probe = RedisProbe.connect(server)) {
            return probe.errorReplies("READONLY");
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
