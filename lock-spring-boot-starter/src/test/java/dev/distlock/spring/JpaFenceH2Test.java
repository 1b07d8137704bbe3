package dev.distlock.spring;

import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/** {@link JpaFenceContract} on H2, a new in-memory database per application context. */
class JpaFenceH2Test extends JpaFenceContract {

    private static final AtomicInteger databases = new AtomicInteger();

    @Override
    DataSource dataSource() {
        DataSource dataSource = new DriverManagerDataSource(
                "jdbc:h2:mem:jpa-fence-" + databases.incrementAndGet() + ";DB_CLOSE_DELAY=-1", "sa", "");
        createFenceTable(dataSource);
        return dataSource;
    }
}
