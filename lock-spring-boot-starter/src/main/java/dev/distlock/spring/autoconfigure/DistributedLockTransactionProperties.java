package dev.distlock.spring.autoconfigure;

/** Settings of the check before a transaction begun inside a lock commits, under {@code distlock.transaction.*}. */
public class DistributedLockTransactionProperties {

    /** Whether a transaction begun inside a lock's work checks, just before it commits, that the lock is still held. */
    private boolean checkBeforeCommit = true;

    /** What such a transaction does when its lock is lost before it commits: ROLL_BACK, or COMMIT_AND_REPORT (commit, log a warning, count it). */
    private OnLost onLostBeforeCommit = OnLost.ROLL_BACK;

    public boolean isCheckBeforeCommit() {
        return checkBeforeCommit;
    }

    public void setCheckBeforeCommit(boolean checkBeforeCommit) {
        this.checkBeforeCommit = checkBeforeCommit;
    }

    public OnLost getOnLostBeforeCommit() {
        return onLostBeforeCommit;
    }

    public void setOnLostBeforeCommit(OnLost onLostBeforeCommit) {
        this.onLostBeforeCommit = onLostBeforeCommit;
    }

    /** What a transaction does when its lock is lost before it commits (the annotation's {@code onLostBeforeCommit} may say otherwise per method). */
    public enum OnLost {
        /** Roll back: the caller gets LockLostBeforeCommitException. */
        ROLL_BACK,
        /** Commit anyway, log a warning and count it. */
        COMMIT_AND_REPORT
    }
}
