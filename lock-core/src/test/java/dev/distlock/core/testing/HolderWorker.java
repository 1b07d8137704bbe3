package dev.distlock.core.testing;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import io.lettuce.core.RedisURI;
import java.time.Duration;

/**
 * Child process of {@link FaultToleranceTest} and {@link SemaphoreAcrossProcessesTest}: takes a watchdog
 * lock (or, given a fourth argument N, one permit of a semaphore of N permits), prints {@code HELD}, and
 * holds it until it is killed. Arguments: redis URI, lock name, watchdog lease in ms[, permits].
 */
public final class HolderWorker {

    private HolderWorker() {}

    public static void main(String[] args) throws Exception {
        LockClientOptions options = LockClientOptions.builder()
                .watchdogLease(Duration.ofMillis(Long.parseLong(args[2])))
                .build();
        LockClient client = LockClient.create(RedisURI.create(args[0]), options);
        if (args.length > 3) {
            client.getSemaphore(args[1], Integer.parseInt(args[3])).acquire();
        } else {
            client.getLock(args[1]).lock();
        }
        System.out.println("HELD");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
