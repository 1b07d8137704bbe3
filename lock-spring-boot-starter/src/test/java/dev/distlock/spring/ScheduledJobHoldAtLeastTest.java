package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.LockType;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.annotation.OnLockFailure;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
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
@BehaviourTest
class ScheduledJobHoldAtLeastTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** Runs of the job, from both instances; one JVM, so their times are comparable. */
    static final List<Run> runs = new CopyOnWriteArrayList<>();

    private static final long KEEP_MS = 900;

    private ApplicationContextRunner instance(long triggerOffsetMs, String holdAtLeast, String key) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withUserConfiguration(Scheduling.class)
                .withBean(NightlyJob.class)
                .withBean(Trigger.class)
                .withPropertyValues(
                        "spring.data.redis.port=" + redis.server().port(),
                        "job.offset=" + triggerOffsetMs,
                        "job.keep=" + holdAtLeast,
                        "job.key=" + key);
    }

    /**
     * Runs two instances (two contexts: two lock clients, two schedulers) side by side, for {@code ms} from
     * the job's first run, or until {@code seen} holds, whichever comes first, within {@link Waits#GRANTED}
     * (a loaded host starts contexts and fires triggers late, and skips a try Redis did not answer in time);
     * the runs in the order they started.
     */
    private List<Run> runBoth(String holdAtLeast, long ms, Predicate<List<Run>> seen) {
        runs.clear();
        String key = "nightly-" + System.nanoTime();
        instance(0, holdAtLeast, key)
                .run(first -> instance(300, holdAtLeast, key).run(second -> {
                    assertThat(first).hasNotFailed();
                    assertThat(second).hasNotFailed();
                    long deadline = System.nanoTime() + Waits.GRANTED.toNanos();
                    long firstRanAt = 0;
                    while (System.nanoTime() - deadline < 0 && !seen.test(sorted())) {
                        if (firstRanAt == 0 && !runs.isEmpty()) {
                            firstRanAt = System.nanoTime();
                        }
                        if (firstRanAt != 0 && System.nanoTime() - firstRanAt > TimeUnit.MILLISECONDS.toNanos(ms)) {
                            break;
                        }
                        Thread.sleep(50);
                    }
                }));
        return sorted();
    }

    private static List<Run> sorted() {
        List<Run> sorted = new ArrayList<>(runs);
        sorted.sort(Comparator.comparingLong(Run::startedNanos));
        return sorted;
    }

    /** The smallest time from one instance's run to the start of the other instance's next run. */
    private static long smallestGapAcrossInstancesMs(List<Run> runs) {
        long gap = Long.MAX_VALUE;
        for (int i = 1; i < runs.size(); i++) {
            if (runs.get(i).instance() != runs.get(i - 1).instance()) {
                gap = Math.min(gap, runs.get(i).startedNanos() - runs.get(i - 1).startedNanos());
            }
        }
        return TimeUnit.NANOSECONDS.toMillis(gap);
    }

    /** The smallest time from a run's {@code from} to the start of the run after it. */
    private static long smallestGapMs(List<Run> runs, ToLongFunction<Run> from) {
        long gap = Long.MAX_VALUE;
        for (int i = 1; i < runs.size(); i++) {
            gap = Math.min(gap, runs.get(i).startedNanos() - from.applyAsLong(runs.get(i - 1)));
        }
        return TimeUnit.NANOSECONDS.toMillis(gap);
    }

    @Test
    void withHoldAtLeastNoTwoRunsStartWithinItAcrossInstances() {
        // both instances' triggers fire three times each after the first run: a run within KEEP_MS of another
        // would show in that window
        List<Run> runs = runBoth(KEEP_MS + "ms", 3_400, seen -> false);

        assertThat(runs).as("the job ran").hasSizeGreaterThanOrEqualTo(2);
        // holdAtLeast counts from when the grant was asked for, which is after the run was called: the next
        // run starts KEEP_MS after that call at least, however slow the replies (Redis's whole milliseconds
        // aside). Measured from the run's own start instead, a slow first reply would eat into the bound.
        assertThat(smallestGapMs(runs, Run::calledNanos))
                .as("from a run's call to the next run's start in %s", runs)
                .isGreaterThanOrEqualTo(KEEP_MS - 2);
    }

    @Test
    void withoutHoldAtLeastTheLateTriggerRunsTheJobAgain() {
        Predicate<List<Run>> secondRanSoonAfter = seen -> smallestGapAcrossInstancesMs(seen) < KEEP_MS - 100;
        List<Run> runs = runBoth("0", 3_400, secondRanSoonAfter);

        assertThat(smallestGapAcrossInstancesMs(runs))
                .as("the second instance's trigger, 300 ms later, ran the finished job again: %s", runs)
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

    /** A run of the job: when its trigger called it (before the lock was asked for) and when it started. */
    record Run(long instance, long calledNanos, long startedNanos) {}

    public static class NightlyJob {
        /** Returns when it started; empty when skipped because the lock was taken. */
        @DistributedLock(
                key = "'${job.key}'",
                waitTime = "0",
                onFailure = OnLockFailure.SKIP,
                holdAtLeast = "${job.keep}")
        public Optional<Long> run() {
            return Optional.of(System.nanoTime());
        }
    }

    /** The instance's scheduled trigger, another bean so that its call goes through the job's lock. */
    public static class Trigger {
        private final NightlyJob job;

        public Trigger(NightlyJob job) {
            this.job = job;
        }

        @Value("${job.offset}")
        long instance;

        @Scheduled(initialDelayString = "${job.offset}", fixedRate = 1000)
        public void fire() {
            long called = System.nanoTime();
            job.run().ifPresent(started -> runs.add(new Run(instance, called, started)));
        }
    }
}
