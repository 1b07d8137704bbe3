package dev.distlock.core;

import static org.awaitility.Awaitility.await;

import dev.distlock.core.testing.ContractLocks;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.contract.ContractLock;
import dev.distlock.testsupport.contract.LeaseLosses;
import dev.distlock.testsupport.contract.LockContract;
import dev.distlock.testsupport.contract.LockKind;
import dev.distlock.testsupport.contract.LockMaker;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The shared lock contract (lock-test-support) on one standalone Redis, every kind a LockClient makes. */
class LockContractTest extends LockContract<LockClient> {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Override
    protected LockMaker<LockClient> maker() {
        return new LockMaker<>() {
            @Override
            public Set<LockKind> kinds() {
                return EnumSet.allOf(LockKind.class);
            }

            @Override
            public LockClient open(@Nullable Duration watchdogLease, @Nullable LeaseLosses losses) {
                return LockContractTest.this.open(ContractLocks.options(watchdogLease, losses));
            }

            @Override
            public ContractLock lock(LockClient client, LockKind kind, String name) {
                return ContractLocks.of(
                        switch (kind) {
                            case REENTRANT -> client.getLock(name);
                            case FAIR -> client.getFairLock(name);
                            case WRITE -> client.getReadWriteLock(name).writeLock();
                            case MULTI -> client.getMultiLock(name + ":1", name + ":2");
                        });
            }

            @Override
            public void awaitWaiting(LockClient client, Thread waiter, Duration atMost) {
                // a waiter listens for the release on the lock's channel
                await().atMost(atMost).until(() -> client.subscribedChannels() > 0);
            }

            @Override
            public Class<LockLeaseExpiredException> leaseLost() {
                return LockLeaseExpiredException.class;
            }

            @Override
            public Class<LockUnavailableException> unanswered() {
                return LockUnavailableException.class;
            }
        };
    }

    /** A client on the topology under test: standalone here, overridden for Redis Cluster. */
    LockClient open(LockClientOptions options) {
        return LockClient.create(RedisURI.create(redis.server().uri()), options);
    }
}
