package dev.distlock.core.testing;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import io.lettuce.core.RedisURI;
import java.time.Duration;

/**
 * Child process of {@link FaultToleranceTest}: takes a watchdog lock, prints {@code HELD}, and
 * holds it until it is killed. Arguments: redis URI, lock name, watchdog lease in ms.
 */
public final class HolderWorker {

    private HolderWorker() {}

    public static void main(String[] args) throws Exception {
        LockClientOptions options = LockClientOptions.builder()
                .watchdogLease(Duration.ofMillis(Long.parseLong(args[2])))
                .build();
        LockClient client = LockClient.create(RedisURI.create(args[0]), options);
        client.getLock(args[1]).lock();
        System.out.println("HELD");
        System.out.flush();
        Thread.sleep(Long.MAX_VALUE);
    }
}
