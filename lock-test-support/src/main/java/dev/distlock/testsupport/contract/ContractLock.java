package dev.distlock.testsupport.contract;

import java.time.Duration;

/** One lock as the contract sees it: the calls of lock-core's {@code RedisLock} that the contract makes. */
public interface ContractLock {

    /** Waits up to {@code wait} for the lock; whether it was granted. */
    boolean tryLock(Duration wait) throws InterruptedException;

    /** Waits for the lock, however long. */
    void lock();

    /** Gives back one hold of the calling thread. */
    void unlock();

    /** Holds of the calling thread. */
    int getHoldCount();

    /** The fencing token of the calling thread's hold. */
    long currentFencingToken();

    boolean isHeldByCurrentThread();

    /** Whether anyone holds the lock, as the store says. */
    boolean isLocked();

    /** Deletes the lock whoever holds it; whether there was one. */
    boolean forceUnlock();

    /** How many lock names one hold of this lock holds: 1, or a multi-lock's number of names. */
    int names();
}
