package dev.distlock.core.internal.support;

import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener;
import dev.distlock.core.LockListener.AcquireOutcome;
import dev.distlock.core.LockListener.RenewalOutcome;
import dev.distlock.core.LockUnavailableException;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells the client's {@link LockListener}s what happened; a listener that throws is logged and
 * never disturbs the lock or the other listeners. Shared by the Redis and the RedLock engine.
 */
public final class Events {

    private static final Logger log = LoggerFactory.getLogger(Events.class);

    private final List<LockListener> listeners;

    public Events(List<LockListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    public void acquire(LockInfo info, AcquireOutcome outcome, long startNanos) {
        Duration waited = Duration.ofNanos(System.nanoTime() - startNanos);
        fire(l -> l.onAcquire(info, outcome, waited));
    }

    /** An acquire that ended with {@code error}: unavailable when Redis did not answer, else an error. */
    public void failed(LockInfo info, Throwable error, long startNanos) {
        acquire(
                info,
                error instanceof LockUnavailableException ? AcquireOutcome.UNAVAILABLE : AcquireOutcome.ERROR,
                startNanos);
    }

    public void release(LockInfo info, Duration heldFor) {
        fire(l -> l.onRelease(info, heldFor));
    }

    public void renewal(LockInfo info, RenewalOutcome outcome) {
        fire(l -> l.onRenewal(info, outcome));
    }

    public void leaseLost(LockInfo info, String reason) {
        fire(l -> l.onLeaseLost(info, reason));
    }

    public void longHold(LockInfo info, Duration heldFor) {
        fire(l -> l.onLongHold(info, heldFor));
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
