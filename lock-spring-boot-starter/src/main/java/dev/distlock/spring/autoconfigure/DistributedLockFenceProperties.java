package dev.distlock.spring.autoconfigure;

/** Settings of LockContext.fence(), under {@code distlock.fence.*}. */
public class DistributedLockFenceProperties {

    /** Table of LockContext.fence().check: columns resource (text, primary key) and token (bigint); see JdbcFence.createTableSql(). */
    private String table = "distlock_fence";

    public String getTable() {
        return table;
    }

    public void setTable(String table) {
        this.table = table;
    }
}
