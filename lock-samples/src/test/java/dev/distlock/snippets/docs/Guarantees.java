package dev.distlock.snippets.docs;

import dev.distlock.spring.LockContext;
import dev.distlock.spring.annotation.DistributedLock;
import org.springframework.jdbc.core.JdbcTemplate;

/** docs/guarantees.md. */
public class Guarantees {

    private final JdbcTemplate jdbc;

    public Guarantees(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    // docs:begin guarantees.md 0
    @DistributedLock(key = "'stock:' + #sku")
    public void book(String sku) {
        long token = LockContext.currentToken(); // or lock.currentFencingToken() in plain Java
        int updated = jdbc.update(
                "UPDATE stock SET qty = qty - 1, fence = ? WHERE sku = ? AND fence <= ?", token, sku, token);
        if (updated == 0) {
            throw new IllegalStateException("a newer lock holder has written " + sku + "; this one lost its lease");
        }
    }
    // docs:end
}
