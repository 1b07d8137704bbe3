package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import reactor.core.publisher.Mono;

/**
 * Async, reactive and blocking {@code @DistributedLock} callers, and thread-bound callers of another
 * instance, on one name: never two inside at once, checked on the history of entries and exits.
 */
@BehaviourTest
class MixedCallersTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void asyncReactiveAndThreadBoundCallersOnOneNameExcludeEachOther() throws Exception {
        Ledger ledger = new Ledger();
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + redis.server().port(), "distlock.wait-time=2m")
                .withBean(Ledger.class, () -> ledger)
                .withBean(Account.class, () -> new Account(ledger))
                .run(context -> {
                    Account account = context.getBean(Account.class);
                    ExecutorService blockingCallers = Executors.newFixedThreadPool(4);
                    try (LockClient otherInstance =
                            LockClient.create(RedisURI.create(redis.server().uri()))) {
                        List<CompletableFuture<?>> calls = new ArrayList<>();
                        for (int i = 0; i < 100; i++) {
                            calls.add(account.futureDeposit());
                            calls.add(account.monoDeposit().toFuture());
                            calls.add(CompletableFuture.runAsync(account::blockingDeposit, blockingCallers));
                            calls.add(CompletableFuture.runAsync(
                                    () -> otherInstanceDeposit(otherInstance, ledger), blockingCallers));
                        }
                        CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new))
                                .get(3, TimeUnit.MINUTES);
                    } finally {
                        blockingCallers.shutdownNow();
                    }
                });
        assertThat(ledger.history).hasSize(800);
        List<String> events = List.copyOf(ledger.history);
        for (int i = 0; i < events.size(); i += 2) {
            assertThat(events.get(i)).as("event %d", i).startsWith("enter ");
            assertThat(events.get(i + 1))
                    .as("event %d: the same caller leaves before anyone else enters", i + 1)
                    .isEqualTo("exit " + events.get(i).substring("enter ".length()));
        }
        assertThat(ledger.deposits.get()).isEqualTo(400);
    }

    /** Another instance, with the thread-bound API on the same name. */
    private static void otherInstanceDeposit(LockClient otherInstance, Ledger ledger) {
        RedisLock lock = otherInstance.getLock("account:1");
        lock.lock();
        try {
            ledger.deposit("other-" + Thread.currentThread().getName());
        } finally {
            lock.unlock();
        }
    }

    /** The history of who entered and left the lock, in order. */
    public static class Ledger {
        final ConcurrentLinkedQueue<String> history = new ConcurrentLinkedQueue<>();
        final AtomicInteger deposits = new AtomicInteger();
        private final AtomicInteger ids = new AtomicInteger();

        void deposit(String who) {
            String caller = who + "#" + ids.incrementAndGet();
            history.add("enter " + caller);
            deposits.incrementAndGet();
            history.add("exit " + caller);
        }

        /** Enters now, leaves when {@code work} completes. */
        String enter(String who) {
            String caller = who + "#" + ids.incrementAndGet();
            history.add("enter " + caller);
            deposits.incrementAndGet();
            return caller;
        }

        void exit(String caller) {
            history.add("exit " + caller);
        }
    }

    public static class Account {
        private final Ledger ledger;

        public Account(Ledger ledger) {
            this.ledger = ledger;
        }

        @DistributedLock(key = "account:1")
        public CompletableFuture<Void> futureDeposit() {
            String caller = ledger.enter("future");
            return CompletableFuture.runAsync(
                    () -> ledger.exit(caller), CompletableFuture.delayedExecutor(2, TimeUnit.MILLISECONDS));
        }

        @DistributedLock(key = "account:1")
        public Mono<Void> monoDeposit() {
            return Mono.fromCallable(() -> ledger.enter("mono"))
                    .delayElement(Duration.ofMillis(2))
                    .doOnNext(ledger::exit)
                    .then();
        }

        @DistributedLock(key = "account:1")
        public void blockingDeposit() {
            ledger.deposit("blocking-" + Thread.currentThread().getName());
        }
    }
}
