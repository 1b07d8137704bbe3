package dev.distlock.snippets.docs;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockHandle;
import dev.distlock.core.RedisSemaphore;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.annotation.DistributedLock;
import java.time.Duration;
import java.util.Optional;

/** docs/semaphores.md. */
public class SemaphoresGuide {

    interface PartnerApi {
        void export(String batch, long fencingToken);
    }

    private final PartnerApi partner;

    public SemaphoresGuide(PartnerApi partner) {
        this.partner = partner;
    }

    boolean plainJava(LockClient client, String batch) throws InterruptedException {
        // docs:begin semaphores.md 0
        RedisSemaphore exports = client.getSemaphore("partner-api", 3);
        Optional<LockHandle> permit = exports.tryAcquire(Duration.ofSeconds(2));
        if (permit.isEmpty()) {
            return false; // three exports run elsewhere; try later
        }
        try (LockHandle held = permit.get()) {
            partner.export(batch, held.fencingToken());
        }
        return true;
        // docs:end
    }

    // docs:begin semaphores.md 1
    @DistributedLock(key = "'partner-api'", permits = 3, waitTime = "2s")
    public void export(String batch) {
        partner.export(batch, LockContext.currentToken());
    }
    // docs:end
}
