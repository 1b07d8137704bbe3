package dev.distlock.snippets.template;

import dev.distlock.core.LockType;
import dev.distlock.spring.LockTemplate;
import java.time.Duration;
import java.util.Optional;
import org.springframework.stereotype.Service;

@Service
public class Catalog {

    private final LockTemplate locks;

    public Catalog(LockTemplate locks) {
        this.locks = locks;
    }

    public String reprice(String sku) {
        // "reprice" names the lock in metrics; the key ("sku:...") never becomes a tag
        return locks.withName("reprice").execute("sku:" + sku, Duration.ofSeconds(2), () -> "repriced " + sku);
    }

    public Optional<String> rebuildIndex() {
        // empty when another instance holds the lock (like onFailure = SKIP)
        return locks.withName("catalog-index").tryExecute("catalog-index", Duration.ZERO, () -> "rebuilt");
    }

    public String describe(String sku) {
        // the read side of a read/write lock: readers share, a writer excludes them
        return locks.withName("catalog")
                .withType(LockType.READ)
                .execute("catalog", Duration.ofSeconds(1), () -> "description of " + sku);
    }
}
