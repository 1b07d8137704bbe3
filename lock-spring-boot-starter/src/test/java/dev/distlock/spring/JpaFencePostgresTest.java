package dev.distlock.spring;

import dev.distlock.testsupport.PostgresExtension;
import dev.distlock.testsupport.PostgresServer;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * {@link JpaFenceContract} on a real PostgreSQL server started for the test class (a failed statement aborts
 * a PostgreSQL transaction, so the fence's check must not break the JPA transaction it joins). Skipped, with
 * the reason, where PostgreSQL is not installed.
 */
class JpaFencePostgresTest extends JpaFenceContract {

    @RegisterExtension
    static final PostgresExtension postgres = new PostgresExtension();

    @Override
    DataSource dataSource() {
        DataSource dataSource = new DriverManagerDataSource(postgres.server().jdbcUrl(), PostgresServer.USER, "");
        createFenceTable(dataSource);
        return dataSource;
    }
}
