package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.LockType;
import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.RedisExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * The scheduled job that must not run twice (ShedLock's most asked question): two instances whose
 * triggers fire 300 ms apart. With holdAtLeast the first run keeps the second instance out although it
 * finishes at once; without it, both run.
 */
class ScheduledJobHoldAtLeastTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** Start times (nanoTime) of runs of the job, from both instances; one JVM, so comparable. */
    static final List<Long> runs = new CopyOnWriteArrayList<>();

    private static final long KEEP_MS = 900;

    private ApplicationContextRunner instance(long triggerOffsetMs, String holdAtLeast, String key) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withUserConfiguration(Scheduling.class)
                .withBean(NightlyJob.class)
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "job.offset=" + triggerOffsetMs,
                        "job.keep=" + holdAtLeast,
                        "job.key=" + key);
    }

    /** Runs two instances (two contexts: two lock clients, two schedulers) side by side for {@code ms}. */
    private List<Long> runBoth(String holdAtLeast, long ms) {
        runs.clear();
        String key = "nightly-" + System.nanoTime();
        instance(0, holdAtLeast, key)
                .run(first -> instance(300, holdAtLeast, key).run(second -> {
                    assertThat(first).hasNotFailed();
                    assertThat(second).hasNotFailed();
                    Thread.sleep(ms);
                }));
        List<Long> sorted = new ArrayList<>(runs);
        sorted.sort(Long::compare);
        return sorted;
    }

    private static long smallestGapMs(List<Long> starts) {
        long gap = Long.MAX_VALUE;
        for (int i = 1; i < starts.size(); i++) {
            gap = Math.min(gap, starts.get(i) - starts.get(i - 1));
        }
        return TimeUnit.NANOSECONDS.toMillis(gap);
    }

    @Test
    void withHoldAtLeastNoTwoRunsStartWithinItAcrossInstances() {
        List<Long> starts = runBoth(KEEP_MS + "ms", 3_400);

        assertThat(starts).as("the job ran").hasSizeGreaterThanOrEqualTo(2);
        // A run starts after its grant; the next grant comes at least KEEP_MS after that grant.
        assertThat(smallestGapMs(starts))
                .as("runs %s apart at least holdAtLeast (less a margin for the call's own overhead)", starts)
                .isGreaterThanOrEqualTo(KEEP_MS - 100);
    }

    @Test
    void withoutHoldAtLeastTheLateTriggerRunsTheJobAgain() {
        List<Long> starts = runBoth("0", 1_600);

        assertThat(smallestGapMs(starts))
                .as("the second instance's trigger, 300 ms later, ran the finished job again")
                .isLessThan(KEEP_MS - 100);
    }

    @Test
    void badHoldAtLeastOnTheTemplateIsRefusedWithTheFix() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + redis.server().port())
                .run(context -> {
                    LockTemplate template = context.getBean(LockTemplate.class);
                    assertThatThrownBy(() -> template.withType(LockType.FAIR).withHoldAtLeast(Duration.ofSeconds(1)))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("holdAtLeast needs type REENTRANT");
                    assertThatThrownBy(() -> template.withLeaseTime(Duration.ofSeconds(1))
                                    .withHoldAtLeast(Duration.ofSeconds(2)))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("make it at most the lease");
                    assertThatThrownBy(() -> template.withHoldAtLeast(Duration.ofSeconds(2))
                                    .withLeaseTime(Duration.ofSeconds(1)))
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining("make the lease at least holdAtLeast");
                    String key = "template-keep-" + System.nanoTime();
                    template.withHoldAtLeast(Duration.ofSeconds(5)).execute(key, Duration.ZERO, () -> {});
                    assertThat(template.tryExecute(key, Duration.ZERO, () -> "again"))
                            .as("kept after the work ended")
                            .isEmpty();
                });
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class Scheduling {}

    public static class NightlyJob {
        @Scheduled(initialDelayString = "${job.offset}", fixedRate = 1000)
        @DistributedLock(
                key = "'${job.key}'",
                waitTime = "0",
                onFailure = OnLockFailure.SKIP,
                holdAtLeast = "${job.keep}")
        public void run() {
            runs.add(System.nanoTime());
        }
    }
}
