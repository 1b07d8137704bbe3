package dev.distlock.snippets.docs;

import dev.distlock.core.LockType;
import dev.distlock.spring.LockContext;
import dev.distlock.spring.LockTemplate;
import dev.distlock.spring.ReactiveLockContext;
import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.LockClientOptionsCustomizer;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/** docs/spring-boot.md. */
public class SpringBootGuide {

    private final Gateway gateway = (id, token) -> CompletableFuture.completedFuture(new Receipt(id));
    private final Stock stock = (sku, token) -> Mono.empty();
    private final LockTemplate lockTemplate;

    public SpringBootGuide(LockTemplate lockTemplate) {
        this.lockTemplate = lockTemplate;
    }

    // docs:begin spring-boot.md 0
    @DistributedLock(key = "'order:' + #id", waitTime = "2s")
    public CompletableFuture<Receipt> pay(long id) { // the caller gets a future at once
        long token = LockContext.currentToken(); // works here: the lock is held
        return gateway.charge(id, token); // the lock is held until this completes
    }

    @DistributedLock(key = "'stock:' + #sku")
    public Mono<Void> book(String sku) { // nothing happens until subscribed
        return ReactiveLockContext.currentToken() // the token, from the Reactor Context
                .flatMap(token -> stock.decrement(sku, token));
    }
    // docs:end

    public void template(long orderId, long from, long to) {
        // docs:begin spring-boot.md 1
        // "payments" names the lock in metrics (the key never is a tag); LockAcquisitionException when busy
        Receipt receipt = lockTemplate
                .withName("payments")
                .execute("order:" + orderId, Duration.ofSeconds(2), () -> charge(orderId));

        // empty when another instance has it (like SKIP)
        Optional<Report> report =
                lockTemplate.withName("nightly-report").tryExecute("nightly-report", Duration.ZERO, this::build);

        lockTemplate
                .withName("transfer")
                .executeAll(List.of("account:" + from, "account:" + to), Duration.ofSeconds(1), () -> move(from, to));
        lockTemplate
                .withName("catalog")
                .withType(LockType.READ)
                .execute("catalog", Duration.ofSeconds(1), () -> read());
        // docs:end
    }

    // docs:begin spring-boot.md 2
    @Bean
    LockClientOptionsCustomizer lockOptions() {
        return builder -> builder.keyPrefix("billing:lock:");
    }
    // docs:end

    Receipt charge(long orderId) {
        return new Receipt(orderId);
    }

    Report build() {
        return new Report();
    }

    void move(long from, long to) {}

    String read() {
        return "catalog";
    }

    record Report() {}

    interface Gateway {
        CompletableFuture<Receipt> charge(long id, long token);
    }

    interface Stock {
        Mono<Void> decrement(String sku, long token);
    }
}
