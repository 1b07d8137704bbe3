package dev.distlock.core.internal.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Wakes threads that wait for a busy lock. One Redis subscription per lock channel, shared by all
 * local waiters of that lock and dropped {@link #KEEP_OPEN} after the last one left. A release published by another
 * client wakes one local waiter (all of them for a "wake all" message); a release done by this
 * client wakes a local waiter directly, without waiting for its own message to come back, except
 * for a message addressed to one waiter's own channel, which only the message itself wakes.
 * Internal: not part of the public API.
 */
public final class WakeupHub {

    /** Suffix of a wake-up message that wakes every waiter instead of one. */
    public static final String WAKE_ALL = ":all";

    /**
     * Suffix of a wake-up message addressed to one waiter's own channel (fair locks). No local
     * wake-up preceded it, so it wakes a waiter even in the client that published it.
     */
    public static final String DIRECTED = ":directed";

    /**
     * How long a channel stays subscribed after its last waiter left: a thread that waits for the same
     * lock again within it joins before it tries, so its wait costs no subscription.
     */
    public static final Duration KEEP_OPEN = Duration.ofSeconds(1);

    /**
     * Prefix of a wake-up message that carries a grant: {@code ~g <token> <grant id> <TTL ms> }, then the
     * plain message. A fair grant's goes to its waiter's own channel and ends with {@link #DIRECTED}, so a
     * client that does not read grants still wakes; a reentrant grant's goes to the lock's channel, where
     * every other subscriber takes it as the plain message it ends with.
     */
    static final String GRANT = "~g ";

    /** Takes a grant that a wake-up message carries; see {@link #receiveGrants}. */
    @FunctionalInterface
    public interface GrantReceiver {
        /**
         * Whether the waiter of {@code channel} was offered the grant (it is woken then); false leaves the
         * message a plain wake-up.
         *
         * @param ttlMs the grant's TTL in Redis, set when the release ran
         */
        boolean granted(String channel, long token, String grantId, long ttlMs);
    }

    private final RedisPort.Channels subscriptions;
    private final String selfId;
    private final ConcurrentHashMap<String, WaitChannel> channels = new ConcurrentHashMap<>();
    /** Closes kept channels once idle. */
    private final ScheduledExecutorService timers;

    private volatile GrantReceiver grants = (channel, token, grantId, ttlMs) -> false;

    public WakeupHub(RedisPort redis, String selfId, ScheduledExecutorService timers) {
        this.selfId = selfId;
        this.timers = timers;
        this.subscriptions = redis.channels(this::onMessage, this::onSubscribed);
    }

    /** The message a release by this client publishes: other clients wake a waiter, this one ignores it. */
    public String message(boolean wakeAll) {
        return wakeAll ? selfId + WAKE_ALL : selfId;
    }

    /** {@code message} marked as addressed to one waiter, see {@link #DIRECTED}. */
    public static String directed(String message) {
        return message + DIRECTED;
    }

    /**
     * Registers the caller as a waiter on {@code channel}, subscribing when it is the first. The
     * subscription stays open for {@link #KEEP_OPEN} after the last waiter left, for a waiter that comes
     * back to wait again (see {@link #joinIfOpen}): under contention across clients the lock changes
     * hands between them all the time, and each change would otherwise cost its new waiter a SUBSCRIBE,
     * a second try once subscribed, and an UNSUBSCRIBE.
     */
    public WaitChannel join(String channel) {
        return channels.compute(channel, (name, existing) -> {
            WaitChannel c = existing != null ? existing : new WaitChannel(name, subscribe(name));
            c.refs++;
            c.waiting.incrementAndGet();
            return c;
        });
    }

    /**
     * Joins {@code channel} only if its subscription is open and confirmed already (kept open after an
     * earlier wait), else returns {@code null} and subscribes nothing. A caller that joins before it
     * tries in Redis misses no wake-up sent after that try, and needs neither a subscription round trip
     * nor a second try once subscribed.
     */
    public @Nullable WaitChannel joinIfOpen(String channel) {
        if (!channels.containsKey(channel)) {
            return null; // the common case of a free lock, without taking the map's lock for the key
        }
        WaitChannel[] joined = {null};
        channels.computeIfPresent(channel, (name, c) -> {
            if (c.subscribed.isDone() && !c.subscribed.isCompletedExceptionally()) {
                c.refs++;
                c.waiting.incrementAndGet();
                joined[0] = c;
            }
            return c;
        });
        return joined[0];
    }

    /** Unregisters a waiter; the last one to leave starts the time the channel stays open (or unsubscribes when the client is closing). */
    public void leave(WaitChannel channel) {
        channels.compute(channel.name, (name, existing) -> {
            channel.waiting.decrementAndGet();
            channel.left();
            if (existing != channel || --channel.refs > 0) {
                return existing;
            }
            if (keptOpen(channel)) {
                return existing;
            }
            unsubscribe(name);
            return null;
        });
    }

    /** Starts the time an idle kept channel stays open; false when it cannot stay open (the client is closing). */
    private boolean keptOpen(WaitChannel channel) {
        channel.idleSinceNanos = System.nanoTime();
        if (!channel.closing) {
            channel.closing = closeLater(channel, KEEP_OPEN.toNanos());
        }
        return channel.closing;
    }

    /** Schedules the check that closes a kept channel once it has been idle long enough; false when the client is closing. */
    private boolean closeLater(WaitChannel channel, long delayNanos) {
        try {
            timers.schedule(() -> closeIfIdle(channel), delayNanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException closing) {
            return false;
        }
    }

    private void closeIfIdle(WaitChannel channel) {
        channels.compute(channel.name, (name, existing) -> {
            if (existing != channel) {
                return existing;
            }
            if (channel.refs > 0) {
                channel.closing = false; // its last waiter's leave starts the time again
                return existing;
            }
            long idle = System.nanoTime() - channel.idleSinceNanos;
            if (idle < KEEP_OPEN.toNanos()) {
                channel.closing = closeLater(channel, KEEP_OPEN.toNanos() - idle);
                if (channel.closing) {
                    return existing;
                }
            }
            unsubscribe(name);
            return null;
        });
    }

    private void unsubscribe(String name) {
        try {
            subscriptions.unsubscribe(name);
        } catch (RuntimeException e) {
            // The connection is closed (the client is closing): there is no subscription left to end, and
            // the waiter's own outcome (a LockException saying the client is closed) must not be replaced.
        }
    }

    /** Hands the grants that wake-up messages carry to {@code receiver}; until then they only wake. */
    public void receiveGrants(GrantReceiver receiver) {
        this.grants = receiver;
    }

    /** Wakes local waiters of {@code channel} after this client released its lock. */
    public void wakeLocal(String channel, boolean all) {
        WaitChannel c = channels.get(channel);
        if (c != null) {
            c.wake(all);
        }
    }

    /** Wakes every waiter of every channel: the client is closing, and each will see it. */
    public void wakeAll() {
        channels.values().forEach(c -> c.wake(true));
    }

    /** Number of channels subscribed right now with a waiter on them, kept channels aside (for tests and diagnostics). */
    public int subscribedChannels() {
        return (int) channels.values().stream().filter(c -> c.refs > 0).count();
    }

    private CompletableFuture<Void> subscribe(String channel) {
        try {
            return subscriptions.subscribe(channel);
        } catch (RuntimeException e) { // a closed connection refuses at once; the waiter finds the client closed next
            return CompletableFuture.failedFuture(e);
        }
    }

    private void onMessage(String channel, String message) {
        if (message.startsWith(GRANT)) {
            if (offered(channel, message)) {
                return; // the offer woke the waiter
            }
            message = plainPart(message);
        }
        if (message.startsWith(selfId) && !message.endsWith(DIRECTED)) {
            return; // woken locally already when the release returned
        }
        WaitChannel c = channels.get(channel);
        if (c != null) {
            c.wake(message.endsWith(WAKE_ALL));
        }
    }

    /** The plain wake-up message a {@link #GRANT} message ends with. */
    private static String plainPart(String message) {
        int at = GRANT.length();
        for (int field = 0; field < 3 && at > 0; field++) {
            at = message.indexOf(' ', at) + 1;
        }
        return at > 0 ? message.substring(at) : message;
    }

    /** Offers the grant of a {@link #GRANT} message; false when it names none this client's waiter takes. */
    private boolean offered(String channel, String message) {
        int token = message.indexOf(' ', GRANT.length());
        int grantId = token < 0 ? -1 : message.indexOf(' ', token + 1);
        int ttl = grantId < 0 ? -1 : message.indexOf(' ', grantId + 1);
        if (ttl < 0) {
            return false;
        }
        try {
            return grants.granted(
                    channel,
                    Long.parseLong(message, GRANT.length(), token, 10),
                    message.substring(token + 1, grantId),
                    Long.parseLong(message, grantId + 1, ttl, 10));
        } catch (NumberFormatException e) {
            return false; // not a grant of ours: a plain wake-up
        }
    }

    /**
     * A subscription confirmed again after the pub/sub connection came back: a release published while
     * it was down was missed, so every waiter of the channel looks again now instead of sleeping until
     * the holder's lease ends. (The first confirmation completes {@link WaitChannel#subscribed()}, and
     * its waiters look again anyway.)
     */
    private void onSubscribed(String channel) {
        WaitChannel c = channels.get(channel);
        if (c != null && c.subscribed.isDone()) {
            c.wake(true);
        }
    }
}
