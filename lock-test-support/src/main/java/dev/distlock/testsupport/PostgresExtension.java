package dev.distlock.testsupport;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that starts one real PostgreSQL server ({@link PostgresServer}) before the test class
 * and stops it after; where PostgreSQL is not installed, the class is skipped with the reason.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final PostgresExtension postgres = new PostgresExtension();
 * ... postgres.server().jdbcUrl() ...
 * }</pre>
 */
public final class PostgresExtension implements BeforeAllCallback, AfterAllCallback {

    private volatile PostgresServer server;

    @Override
    public void beforeAll(ExtensionContext context) {
        server = PostgresServer.startOrSkip();
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    /** The server started for this test class. */
    public PostgresServer server() {
        if (server == null) {
            throw new IllegalStateException(
                    "PostgresExtension must be registered as a static @RegisterExtension field");
        }
        return server;
    }
}
