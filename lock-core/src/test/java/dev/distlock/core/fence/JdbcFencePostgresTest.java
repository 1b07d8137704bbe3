package dev.distlock.core.fence;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.distlock.testsupport.PostgresServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * {@link JdbcFence} on a real PostgreSQL server started for the test, where a failed statement aborts the
 * whole transaction (the fence's insert runs under a savepoint for that). Skipped, with the reason, where
 * PostgreSQL is not installed.
 */
class JdbcFencePostgresTest extends JdbcFenceContract {

    static PostgresServer postgres;

    @BeforeAll
    static void startPostgres() {
        String missing = PostgresServer.unavailableReason();
        assumeTrue(missing == null, missing);
        postgres = PostgresServer.start();
    }

    @AfterAll
    static void stopPostgres() {
        if (postgres != null) {
            postgres.close();
        }
    }

    @Override
    Connection connect() throws SQLException {
        return DriverManager.getConnection(postgres.jdbcUrl(), PostgresServer.USER, "");
    }
}
