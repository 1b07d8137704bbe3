package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class SmokeTest {
    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void lockUnlock() throws Exception {
        try (LockClient c = LockClient.create(RedisURI.create(redis.server().uri()))) {
            RedisLock l = c.getLock("a");
            assertThat(l.tryLock(Duration.ofSeconds(1))).isTrue();
            long t = l.currentFencingToken();
            l.lock();
            assertThat(l.getHoldCount()).isEqualTo(2);
            assertThat(l.currentFencingToken()).isEqualTo(t);
            Thread other = new Thread(() -> {
                try {
                    long s = System.nanoTime();
                    boolean ok = l.tryLock(Duration.ofSeconds(5));
                    System.out.println("other got " + ok + " after " + (System.nanoTime() - s) / 1_000_000 + " ms token " + l.currentFencingToken());
                    l.unlock();
                } catch (InterruptedException e) {
                    throw new RuntimeException(e);
                }
            });
            other.start();
            Thread.sleep(300);
            l.unlock();
            l.unlock();
            other.join();
            long s = System.nanoTime();
            for (int i = 0; i < 2000; i++) {
                l.lock();
                l.unlock();
            }
            System.out.println("2000 lock/unlock in " + (System.nanoTime() - s) / 1_000_000 + " ms");
        }
    }
}
