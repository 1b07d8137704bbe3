package dev.distlock.core;

import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redlock.RedLockEngine;
import dev.distlock.core.testing.ContractLocks;
import dev.distlock.core.testing.RedLockNodes;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.contract.ContractLock;
import dev.distlock.testsupport.contract.LeaseLosses;
import dev.distlock.testsupport.contract.LockContract;
import dev.distlock.testsupport.contract.LockKind;
import dev.distlock.testsupport.contract.LockMaker;
import java.time.Duration;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared lock contract (lock-test-support) on RedLocks over three independent standalone masters. A
 * RedLockClient makes reentrant locks only (no fair, read/write or multi RedLock), so only that kind runs.
 */
class RedLockContractTest extends LockContract<RedLockClient> {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private static final int NODES = 3;

    private RedLockNodes nodes;

    @BeforeAll
    void startNodes() {
        nodes = new RedLockNodes(redis);
    }

    @AfterAll
    void stopNodes() throws Exception {
        nodes.close();
    }

    @Override
    protected LockMaker<RedLockClient> maker() {
        return new LockMaker<>() {
            @Override
            public Set<LockKind> kinds() {
                return EnumSet.of(LockKind.REENTRANT);
            }

            @Override
            public RedLockClient open(@Nullable Duration watchdogLease, @Nullable LeaseLosses losses) {
                return RedLockClient.connect(nodes.uris(NODES), ContractLocks.options(watchdogLease, losses));
            }

            @Override
            public ContractLock lock(RedLockClient client, LockKind kind, String name) {
                return ContractLocks.of(client.getLock(name));
            }

            /**
             * A RedLock waiter does not listen for releases (a release by another client reaches it at its next
             * try): it has found the lock held once it sleeps out a back-off between two tries (RedLock's {@code backOff}).
             */
            @Override
            public void awaitWaiting(RedLockClient client, Thread waiter, Duration atMost) {
                String redLock = RedLockEngine.class.getPackageName() + ".";
                await().alias("the waiter backing off (a backOff frame of " + redLock + "*)")
                        .atMost(atMost)
                        .until(() -> Arrays.stream(waiter.getStackTrace())
                                .anyMatch(frame -> frame.getClassName().startsWith(redLock)
                                        && frame.getMethodName().equals("backOff")));
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
}
