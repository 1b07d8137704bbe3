package dev.distlock.core.testing;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener;
import dev.distlock.core.RedisLock;
import dev.distlock.core.RedisMultiLock;
import dev.distlock.testsupport.contract.ContractLock;
import dev.distlock.testsupport.contract.LeaseLosses;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/** lock-core's locks and options as lock-test-support's shared contract ({@code LockContract}) takes them. */
public final class ContractLocks {

    private ContractLocks() {}

    /** {@code lock} behind the contract's view of a lock. */
    public static ContractLock of(RedisLock lock) {
        return new ContractLock() {
            @Override
            public boolean tryLock(Duration wait) throws InterruptedException {
                return lock.tryLock(wait);
            }

            @Override
            public void lock() {
                lock.lock();
            }

            @Override
            public void unlock() {
                lock.unlock();
            }

            @Override
            public int getHoldCount() {
                return lock.getHoldCount();
            }

            @Override
            public long currentFencingToken() {
                return lock.currentFencingToken();
            }

            @Override
            public boolean isHeldByCurrentThread() {
                return lock.isHeldByCurrentThread();
            }

            @Override
            public boolean isLocked() {
                return lock.isLocked();
            }

            @Override
            public boolean forceUnlock() {
                return lock.forceUnlock();
            }

            @Override
            public int names() {
                return lock instanceof RedisMultiLock multi ? multi.keys().size() : 1;
            }
        };
    }

    /** The options of a contract client: its watchdog lease (default when null), its lease losses reported. */
    public static LockClientOptions options(@Nullable Duration watchdogLease, @Nullable LeaseLosses losses) {
        LockClientOptions.Builder options = LockClientOptions.builder();
        if (watchdogLease != null) {
            options.watchdogLease(watchdogLease);
        }
        if (losses != null) {
            options.listener(new LockListener() {
                @Override
                public void onLeaseLost(LockInfo lock, String reason) {
                    losses.report(lock.key(), reason);
                }
            });
        }
        return options.build();
    }
}
