package dev.distlock.spring.annotation;

/** The kind of lock a {@link DistributedLock} method takes. */
public enum LockType {

    /** Exclusive and reentrant; waiters are woken as the holder releases, in no fixed order. */
    REENTRANT,

    /** Exclusive and reentrant, granted in arrival order across threads and instances. */
    FAIR,

    /** The read side of a read/write lock on the key: shared with other readers, excluded by a writer. */
    READ,

    /** The write side of a read/write lock on the key: excludes readers and writers; may take READ inside (downgrade). */
    WRITE
}
