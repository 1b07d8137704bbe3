package dev.distlock.core.fence;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLIntegrityConstraintViolationException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * A fence kept in a database table {@code (resource, token)}: {@link #check} raises a resource's fence to
 * the presented token, or refuses with {@link FencedOffException} when the table already holds a larger
 * one. Run it on the connection of the transaction that makes the write, before or after the write: the
 * row it updates stays locked until that transaction ends, so a newer holder's check waits for it, and a
 * refused check rolls the write back with the rest of the transaction. Plain {@code java.sql}: works with
 * any JDBC connection, Spring's {@code JdbcTemplate} (through {@code DataSourceUtils.getConnection}) and
 * JPA (through the transaction's connection).
 *
 * <pre>{@code
 * JdbcFence fence = new JdbcFence();           // table distlock_fence
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     fence.check(c, "orders:42", lock.currentFencingToken());
 *     // ... the writes to order 42 ...
 *     c.commit();
 * }
 * }</pre>
 *
 * The same token passes again (a re-entered lock keeps its token), so a holder may check more than once.
 */
public final class JdbcFence {

    /** The table {@link #JdbcFence()} uses. */
    public static final String DEFAULT_TABLE = "distlock_fence";

    private static final Pattern TABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*(\\.[A-Za-z_][A-Za-z0-9_]*)?");

    private final String table;

    /** A fence in the table {@value #DEFAULT_TABLE}. */
    public JdbcFence() {
        this(DEFAULT_TABLE);
    }

    /**
     * A fence in {@code table} ({@code name} or {@code schema.name}), which needs the columns
     * {@code resource} (text, primary key) and {@code token} (64-bit integer); see {@link #createTableSql()}.
     *
     * @throws IllegalArgumentException when {@code table} is not a plain SQL name
     */
    public JdbcFence(String table) {
        Objects.requireNonNull(table, "table");
        if (!TABLE.matcher(table).matches()) {
            throw new IllegalArgumentException(
                    "fence table '" + table + "' is not a plain SQL name: use letters, digits"
                            + " and underscores, optionally schema.table (it is written into the SQL statements as it is)");
        }
        this.table = table;
    }

    /** The table's DDL, for a migration script: {@code CREATE TABLE IF NOT EXISTS <table> (resource ..., token ...)}. */
    public String createTableSql() {
        return "CREATE TABLE IF NOT EXISTS " + table
                + " (resource VARCHAR(255) NOT NULL PRIMARY KEY, token BIGINT NOT NULL)";
    }

    /** Creates the table unless it exists (for tests and development; production schemas belong in migrations). */
    public void createTable(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(createTableSql());
        }
    }

    /**
     * Raises the fence of {@code resource} to {@code token} on {@code connection}, in its current transaction.
     *
     * @throws FencedOffException when the fence already holds a larger token: a newer holder has written
     * @throws IllegalArgumentException when {@code resource} is blank or longer than 255 characters
     * @throws SQLException when the database fails
     */
    public void check(Connection connection, String resource, long token) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        requireResource(resource);
        if (raise(connection, resource, token) || insert(connection, resource, token)) {
            return;
        }
        // another transaction inserted the row first: it now exists, so the update decides
        if (!raise(connection, resource, token)) {
            throw new FencedOffException(resource, token, stored(connection, resource));
        }
    }

    private boolean raise(Connection connection, String resource, long token) throws SQLException {
        try (PreparedStatement update =
                connection.prepareStatement("UPDATE " + table + " SET token = ? WHERE resource = ? AND token <= ?")) {
            update.setLong(1, token);
            update.setString(2, resource);
            update.setLong(3, token);
            return update.executeUpdate() > 0;
        }
    }

    /**
     * Inserts the resource's first fence; {@code false} when a row exists already. Inside a transaction the
     * insert runs under a savepoint: on PostgreSQL a failed statement would otherwise abort the transaction.
     */
    private boolean insert(Connection connection, String resource, long token) throws SQLException {
        Savepoint savepoint = connection.getAutoCommit() ? null : connection.setSavepoint();
        try (PreparedStatement insert =
                connection.prepareStatement("INSERT INTO " + table + " (resource, token) VALUES (?, ?)")) {
            insert.setString(1, resource);
            insert.setLong(2, token);
            insert.executeUpdate();
        } catch (SQLException e) {
            if (savepoint != null) {
                connection.rollback(savepoint);
            }
            if (e instanceof SQLIntegrityConstraintViolationException
                    || (e.getSQLState() != null && e.getSQLState().startsWith("23"))) {
                return false; // the row exists: a duplicate key
            }
            throw e;
        }
        if (savepoint != null) {
            connection.releaseSavepoint(savepoint);
        }
        return true;
    }

    private long stored(Connection connection, String resource) throws SQLException {
        try (PreparedStatement select =
                connection.prepareStatement("SELECT token FROM " + table + " WHERE resource = ?")) {
            select.setString(1, resource);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getLong(1) : 0;
            }
        }
    }

    static void requireResource(String resource) {
        Objects.requireNonNull(resource, "resource");
        if (resource.isBlank() || resource.length() > 255) {
            throw new IllegalArgumentException(
                    "fenced resource '" + resource + "' must be 1 to 255 characters, not blank"
                            + " (name it after what the write changes, e.g. \"orders:42\")");
        }
    }
}
