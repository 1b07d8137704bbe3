package dev.distlock.spring.autoconfigure;

import org.springframework.core.Ordered;

/** Settings of the @DistributedLock advisor, under {@code distlock.aop.*}. */
public class DistributedLockAopProperties {

    /** Order of the @DistributedLock advisor; lower runs outside, and the default wraps @Transactional. */
    private int order = Ordered.LOWEST_PRECEDENCE - 100;

    public int getOrder() {
        return order;
    }

    public void setOrder(int order) {
        this.order = order;
    }
}
