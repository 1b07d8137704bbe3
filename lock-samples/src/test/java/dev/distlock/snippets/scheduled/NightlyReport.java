package dev.distlock.snippets.scheduled;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLockFailure;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

@Component
public class NightlyReport {

    // One instance runs the job, the others skip it. The lock stays taken for 5 min after it was
    // taken, so an instance whose clock or trigger is a little late cannot run the job again.
    @Scheduled(cron = "0 0 2 * * *")
    @DistributedLock(waitTime = "0", onFailure = OnLockFailure.SKIP, holdAtLeast = "5m")
    public void run() {
        // build and send the report
    }
}
