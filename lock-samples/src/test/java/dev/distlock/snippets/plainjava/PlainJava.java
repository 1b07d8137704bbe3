package dev.distlock.snippets.plainjava;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import io.lettuce.core.RedisURI;
import java.time.Duration;

public class PlainJava {

    public static void main(String[] args) throws InterruptedException {
        try (LockClient client = LockClient.create(RedisURI.create("redis://localhost:6379"))) {
            RedisLock lock = client.getLock("order:42");
            if (lock.tryLock(Duration.ofSeconds(2))) { // watchdog lease, renewed while held
                try {
                    System.out.println("holding order:42 with token " + lock.currentFencingToken());
                } finally {
                    lock.unlock();
                }
            }
        }
    }
}
