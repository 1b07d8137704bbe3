package dev.distlock.snippets.docs;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLockFailure;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

// docs:begin migrating-from-shedlock.md 1
@Component
class NightlyReport {

    @Scheduled(cron = "0 0 2 * * *")
    @DistributedLock(key = "nightlyReport", waitTime = "0", onFailure = OnLockFailure.SKIP, holdAtLeast = "5m")
    public void run() {
        // build and send the report
    }
}
// docs:end
