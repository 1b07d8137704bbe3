package dev.distlock.core.fence;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** {@link JdbcFence} on an embedded H2 database. */
class JdbcFenceH2Test extends JdbcFenceContract {

    @Override
    Connection connect() throws SQLException {
        return DriverManager.getConnection("jdbc:h2:mem:fence;DB_CLOSE_DELAY=-1", "sa", "");
    }
}
