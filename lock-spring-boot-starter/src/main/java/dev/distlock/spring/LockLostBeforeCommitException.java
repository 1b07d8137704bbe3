package dev.distlock.spring;

import dev.distlock.core.LockException;
import java.util.List;

/**
 * A transaction begun inside a {@code @DistributedLock} method (or {@code LockTemplate} call) was about to
 * commit after its lock had been lost: its lease ran out or was lost, or the lock was no longer this
 * instance's in Redis (force-unlocked, evicted, taken by another owner). Thrown from the transaction's
 * before-commit step, so the transaction rolls back instead (the default,
 * {@code distlock.transaction.on-lost-before-commit=roll-back}); the message names the lock and why.
 *
 * <p>The check narrows the window to the commit itself; only a fence at the store (see
 * {@link LockContext#fence()}) closes it.
 */
public class LockLostBeforeCommitException extends LockException {

    private final List<String> keys;
    private final String name;

    public LockLostBeforeCommitException(List<String> keys, String name, String reason, Throwable cause) {
        super(
                "Lock " + String.join(", ", keys) + " (" + name + ") was lost before the transaction committed: "
                        + reason + "; the transaction was rolled back. Give the work a longer lease (or the watchdog"
                        + " lease), and fence the writes with the lock's token (LockContext.fence()) so that a late"
                        + " commit is refused by the store itself",
                cause);
        this.keys = List.copyOf(keys);
        this.name = name;
    }

    /** The lock's key or keys, as resolved for the call. */
    public List<String> getKeys() {
        return keys;
    }

    /** The lock's declared name (metrics name). */
    public String getName() {
        return name;
    }
}
