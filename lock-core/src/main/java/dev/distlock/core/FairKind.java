package dev.distlock.core;

import dev.distlock.core.pubsub.WakeupHub;
import dev.distlock.core.script.LockScript;
import dev.distlock.core.script.ScriptRunner;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fair lock: the reentrant lock's hash (so renewal is the same script) plus a FIFO queue of
 * waiting owners and a sorted set of their deadlines, all under the lock's hash tag. The lock goes
 * to waiters in the order they first asked, across threads and processes; a release wakes only
 * the next waiter, on that waiter's own channel.
 *
 * <p>A waiter keeps its place by coming back at least every {@code recheck} (each attempt pushes its
 * deadline to {@code min(wait left, recheck) + margin} from now). One that stops coming back
 * (crashed, killed, paused longer than the margin) is dropped when it reaches the head, so it
 * delays the queue by at most about {@code 2 * recheck + margin}; a paused waiter that comes back
 * later queues again at the end.
 */
final class FairKind extends LockKind {

    private static final Logger log = LoggerFactory.getLogger(FairKind.class);

    static final FairKind INSTANCE = new FairKind(Duration.ofSeconds(1), Duration.ofSeconds(3));

    private final String recheckMs;
    private final String marginMs;

    /**
     * @param recheck the longest a waiter sleeps between attempts, whatever the holder's lease
     * @param margin how late past its next attempt a waiter may be before it counts as gone
     */
    FairKind(Duration recheck, Duration margin) {
        super(LockClient.FAIR);
        this.recheckMs = Long.toString(recheck.toMillis());
        this.marginMs = Long.toString(margin.toMillis());
    }

    @Override
    CompletableFuture<List<Object>> acquire(ScriptRunner scripts, LockKeys keys, String owner, String leaseMs, String fenceTtlMs,
            long waitMs) {
        return scripts.array(LockScript.FAIR_ACQUIRE, new String[] {keys.lock(), keys.fence(), keys.queue(), keys.timeouts()},
                owner, leaseMs, fenceTtlMs, Long.toString(waitMs), recheckMs, marginMs, keys.waiterChannelPrefix(), wakeMessage(owner));
    }

    @Override
    CompletableFuture<Long> release(ScriptRunner scripts, LockKeys keys, String owner, String wakeMessage) {
        // The engine wakes local waiters of keys.channel() itself, but fair waiters listen on their own channels:
        // the published message is their only wake-up, so even this client must act on it.
        return scripts.integer(LockScript.FAIR_RELEASE, new String[] {keys.lock(), keys.queue(), keys.timeouts()}, owner,
                keys.waiterChannelPrefix(), WakeupHub.directed(wakeMessage));
    }

    @Override
    CompletableFuture<Long> renew(ScriptRunner scripts, LockKeys keys, String owner, String leaseMs) {
        return scripts.integer(LockScript.RENEW, new String[] {keys.lock()}, owner, leaseMs);
    }

    @Override
    String waitChannel(LockKeys keys, String owner) {
        return keys.waiterChannelPrefix() + owner;
    }

    /** Leaves the queue before returning, so a timed-out or interrupted waiter leaves nothing behind in Redis. */
    @Override
    void gaveUp(ScriptRunner scripts, LockKeys keys, String owner) {
        try {
            LockEngine.await(scripts.integer(LockScript.FAIR_LEAVE, new String[] {keys.lock(), keys.queue(), keys.timeouts()}, owner,
                    keys.waiterChannelPrefix(), wakeMessage(owner)), "leaving the queue of", keys);
        } catch (LockException e) {
            // Called while the acquire ends anyway: its own outcome matters more. The entry expires with its deadline.
            log.warn("Could not leave the queue of fair lock {}; the place expires within {} ms: {}", keys.lock(),
                    Long.parseLong(recheckMs) + Long.parseLong(marginMs), e.toString());
        }
    }

    /**
     * False: the Redis queue is the one arrival order for every thread of every process. A local gate
     * would let one thread per JVM into that queue and hand its permit to whichever local thread the
     * semaphore picks, so a thread that came later could pass threads queued before it elsewhere.
     * Each waiting thread costs its own subscription and a short script per recheck instead.
     */
    @Override
    boolean localQueue() {
        return false;
    }

    /** Owner ids start with the client id, so this tells which client passed the turn on. */
    private static String wakeMessage(String owner) {
        return WakeupHub.directed(owner);
    }
}
