package dev.distlock.outside;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.distlock.core.AbstractLockHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A handle of one's own, written outside lock-core's package, gets the release rules of lock-core's
 * handles from {@link AbstractLockHandle}: no Redis is involved, only the rules.
 */
class AbstractLockHandleTest {

    /** Counts its releases; refuses hold-at-least when told to, as a lock kind without it does. */
    static final class CountingHandle extends AbstractLockHandle {
        final AtomicInteger releases = new AtomicInteger();
        final List<Duration> keptFor = new ArrayList<>();
        final boolean holdAtLeastSupported;
        final RuntimeException failure;

        CountingHandle(boolean holdAtLeastSupported, RuntimeException failure) {
            this.holdAtLeastSupported = holdAtLeastSupported;
            this.failure = failure;
        }

        @Override
        public String key() {
            return "job";
        }

        @Override
        public long fencingToken() {
            return 7;
        }

        @Override
        public boolean isHeld() {
            return !released();
        }

        @Override
        public CompletionStage<String> leaseLost() {
            return new CompletableFuture<>();
        }

        @Override
        protected CompletableFuture<Void> release(Duration holdAtLeast) {
            releases.incrementAndGet();
            keptFor.add(holdAtLeast);
            return failure == null ? CompletableFuture.completedFuture(null) : CompletableFuture.failedFuture(failure);
        }

        @Override
        protected void checkHoldAtLeast(Duration holdAtLeast) {
            if (!holdAtLeastSupported && !holdAtLeast.isZero()) {
                throw new UnsupportedOperationException("no hold-at-least here");
            }
        }
    }

    @Test
    void aSecondReleaseFailsNamingTheLockAndReleasesNothing() {
        CountingHandle handle = new CountingHandle(true, null);
        handle.unlock();
        assertThat(handle.isHeld()).isFalse();
        assertThatThrownBy(handle::unlock)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("'job' was already released");
        assertThat(handle.unlockAsync(Duration.ofSeconds(1)))
                .failsWithin(Duration.ofSeconds(1))
                .withThrowableThat()
                .withMessageContaining("releases its hold exactly once");
        handle.close(); // released already: nothing to do
        assertThat(handle.releases).hasValue(1);
        assertThat(handle.keptFor).containsExactly(Duration.ZERO);
    }

    @Test
    void racingReleasesFromManyThreadsReleaseOnce() throws Exception {
        CountingHandle handle = new CountingHandle(true, null);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Boolean>> tries = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                tries.add(pool.submit(() -> {
                    start.await();
                    return !handle.unlockAsync().toCompletableFuture().isCompletedExceptionally();
                }));
            }
            start.countDown();
            int succeeded = 0;
            for (Future<Boolean> t : tries) {
                succeeded += t.get(10, TimeUnit.SECONDS) ? 1 : 0;
            }
            assertThat(succeeded).isEqualTo(1);
            assertThat(handle.releases).hasValue(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void badHoldAtLeastIsRefusedBeforeAnythingIsReleased() {
        CountingHandle handle = new CountingHandle(false, null);
        assertThatThrownBy(() -> handle.unlockAsync(Duration.ofSeconds(-1)))
                .hasMessageContaining("holdAtLeast of lock 'job'");
        assertThatThrownBy(() -> handle.unlockAsync(Duration.ofDays(366))).hasMessageContaining("at most 365 days");
        assertThatThrownBy(() -> handle.unlockAsync(Duration.ofSeconds(5)))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThat(handle.releases).hasValue(0);
        assertThat(handle.isHeld()).isTrue();
        handle.close();
        assertThat(handle.releases).hasValue(1);
    }

    @Test
    void aFailedReleaseReachesTheCallerAsThrownAndIsNotRetried() {
        CountingHandle handle = new CountingHandle(true, new IllegalStateException("Redis said no"));
        assertThatThrownBy(handle::unlock)
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("Redis said no");
        handle.close(); // marked released: a failed release is not sent again
        assertThat(handle.releases).hasValue(1);
        assertThat(handle.toString()).contains("job", "token 7", "not held");
    }
}
