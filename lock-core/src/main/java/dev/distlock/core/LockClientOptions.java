package dev.distlock.core;

import dev.distlock.core.internal.lock.LockView;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.support.Durations;
import dev.distlock.core.internal.support.OptionValues;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Settings of a {@link LockClient}. Immutable; build with {@link #builder()}.
 *
 * <pre>{@code
 * LockClientOptions options = LockClientOptions.builder()
 *         .keyPrefix("myapp:lock:")
 *         .watchdogLease(Duration.ofSeconds(30))
 *         .listener(myListener)
 *         .build();
 * }</pre>
 */
public final class LockClientOptions {

    /** Lease used when none is given; renewed by the watchdog every third of it. */
    public static final Duration DEFAULT_WATCHDOG_LEASE = Duration.ofSeconds(30);
    /** Prefix of every Redis key and channel the client uses. */
    public static final String DEFAULT_KEY_PREFIX = "lock:";
    /** How long a lock's fencing counter outlives its last grant. */
    public static final Duration DEFAULT_FENCING_COUNTER_TTL = Duration.ofDays(1);
    /** Longest lock name accepted, in characters; longer names are rejected before any Redis call. */
    public static final int DEFAULT_MAX_KEY_LENGTH = 1024;
    /** How long one lock operation waits for Redis, retries included, when nothing else bounds it. */
    public static final Duration DEFAULT_OPERATION_TIMEOUT = Duration.ofSeconds(5);
    /** Default of {@link Builder#localHandOffs}: 64 hand-offs in a row (lock cohorting on). */
    public static final int DEFAULT_LOCAL_HAND_OFFS = 64;
    /** Default of {@link Builder#localHandOffs}'s window: 20 ms after the grant in Redis. */
    public static final Duration DEFAULT_LOCAL_HAND_OFF_WINDOW = Duration.ofMillis(20);

    /** Never changed after the constructor copies them from the builder. */
    private final OptionValues values;

    private LockClientOptions(Builder b) {
        this.values = b.values.copy();
    }

    /** The defaults: prefix {@code lock:}, 30 s watchdog lease, no listeners. */
    public static LockClientOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public String keyPrefix() {
        return values.keyPrefix;
    }

    public Duration watchdogLease() {
        return values.watchdogLease;
    }

    public Duration fencingCounterTtl() {
        return values.fencingCounterTtl;
    }

    /** Whether a holder's thread is interrupted when its hold is lost. */
    public boolean interruptOnLeaseLost() {
        return values.interruptOnLeaseLost;
    }

    /** Replicas that must acknowledge a new grant (Redis WAIT); 0 = do not wait. */
    public int replicaAcks() {
        return values.replicaAcks;
    }

    /** How long a new grant waits for {@link #replicaAcks()}. */
    public Duration replicaAckTimeout() {
        return values.replicaAckTimeout;
    }

    public List<LockListener> listeners() {
        return values.listeners;
    }

    /**
     * How long one lock operation waits for Redis, retries of transient errors included, when the caller gave no
     * bound: a release, a renewal, closing, each step of a {@code lock()} that waits for ever. {@code tryLock(wait)}
     * is bounded by its wait instead, and sends a call that went unanswered again until its wait ends.
     */
    public Duration operationTimeout() {
        return values.operationTimeout;
    }

    /** Longest lock name accepted, in characters (the prefix and braces not counted). */
    public int maxKeyLength() {
        return values.maxKeyLength;
    }

    /**
     * Checks a lock name as a client with these options does when a lock is taken, without touching
     * Redis: for code that must refuse what Redis mode refuses, such as an in-process stand-in.
     *
     * @throws LockNameException when {@code name} is null or blank, longer than {@link #maxKeyLength()},
     *         starts with '}', or holds a control, invisible or bidi character or an unpaired surrogate
     */
    public String requireValidLockName(String name) {
        return LockKeys.requireName(name, this);
    }

    /**
     * How many times in a row a reentrant lock held in Redis may pass between this client's threads, and how many
     * of its waiters queued right behind a fair lock's new holder may take it in turn in-process; 0: never.
     */
    public int localHandOffs() {
        return values.localHandOffs;
    }

    /** How long after its grant in Redis a reentrant lock may still pass between this client's threads. */
    public Duration localHandOffWindow() {
        return values.localHandOffWindow;
    }

    /** How long the watchdog renews one hold at most ({@link Builder#maxHold}); {@code null}: no cap. */
    public @Nullable Duration maxHold() {
        return values.maxHold;
    }

    /** The fraction of a hold's cap ({@link #maxHold()} or a view's) at which it is reported as long; 0 for none. */
    public double longHoldWarning() {
        return values.longHoldWarning;
    }

    /** How wake-ups travel ({@link Builder#pubSub}); {@link PubSubMode#AUTO} unless set. */
    public PubSubMode pubSub() {
        return values.pubSub;
    }

    /** Whether a waiter holds the lock on the wake-up message that carries its grant ({@link Builder#grantsInMessages}). */
    public boolean grantsInMessages() {
        return values.grantsInMessages;
    }

    /** Builds {@link LockClientOptions}; every setter checks its argument. */
    public static final class Builder {
        private final OptionValues values = new OptionValues();

        private Builder() {}

        /**
         * Lock cohorting: when a thread of this client releases a reentrant lock (watchdog lease) while
         * other threads of this client wait for it, the hold passes to the longest-waiting of them without a
         * round trip to Redis, up to {@code handOffs} times in a row and only within {@code window} of the
         * lock's grant in Redis; then it is released in Redis, where a client that found it busy meanwhile
         * gets it next. Every hand-off gets a larger fencing token (each grant in Redis reserves
         * {@code handOffs + 1} of them; while no other client waits, the next block is reserved in the
         * background and the window starts again). Threads of one client, handles among them, take turns in
         * arrival order. A fair lock's release that grants it to a waiter of this client passes it down up to
         * {@code handOffs} of this client's waiters queued right behind, in queue order. On by default (64
         * within 20 ms); {@code localHandOffs(0, Duration.ZERO)} turns it off.
         *
         * @param handOffs 0 to 1,000
         * @param window 0 to 10 s
         */
        public Builder localHandOffs(int handOffs, Duration window) {
            if (handOffs < 0 || handOffs > 1000) {
                throw new IllegalArgumentException("localHandOffs must be between 0 (off) and 1000, got " + handOffs);
            }
            values.localHandOffs = handOffs;
            values.localHandOffWindow =
                    Durations.requireBetween(window, Duration.ZERO, Duration.ofSeconds(10), "localHandOffs window");
            return this;
        }

        /**
         * How long one lock operation waits for Redis, retries of transient errors (a failover's
         * connection reset, TRYAGAIN during a slot migration, LOADING, BUSY) included, when the caller
         * gave no bound: a release, a renewal, and each step of a {@code lock()} that waits for ever.
         * After it a {@link LockUnavailableException} is thrown. Default 5 s; 10 ms to 1 hour. It is
         * independent of the Lettuce client's own command timeout ({@code spring.data.redis.timeout}),
         * which only matters when it is shorter: its time-outs are then retried within this bound.
         */
        public Builder operationTimeout(Duration timeout) {
            values.operationTimeout =
                    Durations.requireBetween(timeout, Duration.ofMillis(10), Duration.ofHours(1), "operationTimeout");
            return this;
        }

        /**
         * After each new grant, wait (Redis WAIT) up to {@code timeout} for {@code replicas} replicas to
         * acknowledge it, else give it back and fail with a {@link LockException}. Off (0) by default. This
         * narrows, but does not close, the window in which a failover to a replica that missed the grant
         * hands the lock out twice; fencing tokens close it. Not available on Redis Cluster.
         */
        public Builder replicaAcks(int replicas, Duration timeout) {
            if (replicas < 0) {
                throw new IllegalArgumentException("replicaAcks must not be negative, got " + replicas);
            }
            values.replicaAcks = replicas;
            values.replicaAckTimeout =
                    Durations.requireBetween(timeout, Duration.ofMillis(1), Duration.ofHours(1), "replicaAckTimeout");
            return this;
        }

        /**
         * Interrupt the thread that acquired a lock when its hold is lost (default false: only report it), so
         * that code checking for interruption stops instead of running on without the lock.
         */
        public Builder interruptOnLeaseLost(boolean interrupt) {
            values.interruptOnLeaseLost = interrupt;
            return this;
        }

        /**
         * Longest lock name accepted, in characters; at least 1. Names usually come from request data
         * (an order id, a user name): the limit keeps a hostile or buggy value from becoming a huge
         * Redis key held for a whole lease.
         */
        public Builder maxKeyLength(int maxKeyLength) {
            if (maxKeyLength < 1) {
                throw new IllegalArgumentException("maxKeyLength must be at least 1, got " + maxKeyLength);
            }
            values.maxKeyLength = maxKeyLength;
            return this;
        }

        /** Prefix of every key; must not contain '{' or '}' (the lock name is the hash tag) nor control characters. */
        public Builder keyPrefix(String keyPrefix) {
            values.keyPrefix = LockKeys.requirePrefix(keyPrefix);
            return this;
        }

        /**
         * Caps how long the watchdog renews one hold (ShedLock's {@code lockAtMostFor}): then its holder is
         * told at once that it lost the lock, before the lease ends. At {@code warnAt} of it (a fraction
         * below 1; 0 for none) one WARN shows the holder's stack and listeners hear {@link LockListener#onLongHold}.
         */
        public Builder maxHold(Duration maxHold, double warnAt) {
            values.maxHold = LockView.requireMaxHold(maxHold);
            return longHoldWarning(warnAt);
        }

        /** {@link #maxHold}'s {@code warnAt}, for the caps of {@link LockClient#withMaxHold} views too. */
        public Builder longHoldWarning(double warnAt) {
            values.longHoldWarning = Durations.requireFraction(warnAt, "warnAt, the long-hold warning");
            return this;
        }

        /** Lease of locks taken without one; the watchdog renews it every third. 30 ms to 365 days. */
        public Builder watchdogLease(Duration watchdogLease) {
            values.watchdogLease = Durations.requireBetween(
                    watchdogLease, Duration.ofMillis(30), Durations.MAX_LEASE, "watchdogLease");
            return this;
        }

        /** How long a lock's fencing counter is kept after its last grant. One minute to 3650 days. */
        public Builder fencingCounterTtl(Duration ttl) {
            values.fencingCounterTtl =
                    Durations.requireBetween(ttl, Duration.ofMinutes(1), Duration.ofDays(3650), "fencingCounterTtl");
            return this;
        }

        /**
         * How wake-ups travel: {@link PubSubMode#AUTO} (the default) chooses sharded pub/sub on a Redis Cluster
         * whose every master runs Redis 7.0 or later, else PUBLISH; {@link PubSubMode#SHARDED} and
         * {@link PubSubMode#PLAIN} choose themselves, SHARDED failing client creation on a Redis older than
         * 7.0. Replaces the deprecated {@code -Ddistlock.sharded-pubsub=false}, which still makes AUTO choose
         * PLAIN (with a WARN).
         */
        public Builder pubSub(PubSubMode mode) {
            values.pubSub =
                    Objects.requireNonNull(mode, "pubSub must not be null: use PubSubMode.AUTO for the default");
            return this;
        }

        /**
         * Whether a waiter holds the lock on the wake-up message that carries its grant (default true): a release
         * grants a fair lock to the head of its queue, a reentrant one to another client's recorded waiter. Off:
         * the waiter takes the grant with an attempt, one more round trip per hand-off between clients (for a
         * comparison). Replaces the deprecated {@code -Ddistlock.fair-message-grants=false}.
         */
        public Builder grantsInMessages(boolean fromMessages) {
            values.grantsInMessages = fromMessages;
            return this;
        }

        /** Adds a listener for lock events. */
        public Builder listener(LockListener listener) {
            values.listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
            return this;
        }

        public LockClientOptions build() {
            return new LockClientOptions(this);
        }
    }
}
