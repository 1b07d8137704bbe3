package dev.distlock.core.fence;

import dev.distlock.testsupport.PostgresExtension;
import dev.distlock.testsupport.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@link JdbcFence} on a real PostgreSQL server started for the test, where a failed statement aborts the
 * whole transaction (the fence's insert runs under a savepoint for that). Skipped, with the reason, where
 * PostgreSQL is not installed.
 */
class JdbcFencePostgresTest extends JdbcFenceContract {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    @Override
    Connection connect() throws SQLException {
        return DriverManager.getConnection(postgres.server().jdbcUrl(), PostgresServer.USER, "");
    }
}
