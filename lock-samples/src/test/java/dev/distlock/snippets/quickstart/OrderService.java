package dev.distlock.snippets.quickstart;

import dev.distlock.spring.LockContext;
import dev.distlock.spring.annotation.DistributedLock;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

@Service
public class OrderService {

    // One call per order at a time across all instances: waits up to 2 s for the lock,
    // else throws LockAcquisitionException. The lock wraps the transaction, which commits first.
    @Transactional
    @DistributedLock(key = "'order:' + #orderId", waitTime = "2s")
    public String pay(long orderId) {
        long token = LockContext.currentToken(); // grows with every grant: hand it to the resource
        return "order " + orderId + " paid under fencing token " + token;
    }
}
