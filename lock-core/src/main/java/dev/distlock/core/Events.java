package dev.distlock.core;

import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.LockListener.RenewalOutcome;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the client's {@link LockListener}s what happened; a listener that throws is logged and
 * never disturbs the lock or the other listeners. Shared by the Redis and the RedLock engine.
 */
final class Events {

    private static final Logger log = LoggerFactory.getLogger(Events.class);

    private final List<LockListener> listeners;

    Events(List<LockListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    void acquire(LockInfo info, AcquireOutcome outcome, long startNanos) {
        Duration waited = Duration.ofNanos(System.nanoTime() - startNanos);
        fire(l -> l.onAcquire(info, outcome, waited));
    }

    /** An acquire that ended with {@code error}: unavailable when Redis did not answer, else an error. */
    void failed(LockInfo info, Throwable error, long startNanos) {
        acquire(
                info,
                error instanceof LockUnavailableException ? AcquireOutcome.UNAVAILABLE : AcquireOutcome.ERROR,
                startNanos);
    }

    void release(LockInfo info, Duration heldFor) {
        fire(l -> l.onRelease(info, heldFor));
    }

    void renewal(LockInfo info, RenewalOutcome outcome) {
        fire(l -> l.onRenewal(info, outcome));
    }

    void leaseLost(LockInfo info, String reason) {
        fire(l -> l.onLeaseLost(info, reason));
    }

    private void fire(Consumer<LockListener> event) {
        for (LockListener listener : listeners) {
            try {
                event.accept(listener);
            } catch (RuntimeException e) {
                log.warn("Lock listener {} failed", listener, e);
            }
        }
    }
}
