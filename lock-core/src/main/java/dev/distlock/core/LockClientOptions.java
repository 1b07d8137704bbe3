package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

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

    private final String keyPrefix;
    private final Duration watchdogLease;
    private final Duration fencingCounterTtl;
    private final List<LockListener> listeners;
    private final int maxKeyLength;

    private LockClientOptions(Builder b) {
        this.maxKeyLength = b.maxKeyLength;
        this.keyPrefix = b.keyPrefix;
        this.watchdogLease = b.watchdogLease;
        this.fencingCounterTtl = b.fencingCounterTtl;
        this.listeners = List.copyOf(b.listeners);
    }

    /** The defaults: prefix {@code lock:}, 30 s watchdog lease, no listeners. */
    public static LockClientOptions defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public String keyPrefix() {
        return keyPrefix;
    }

    public Duration watchdogLease() {
        return watchdogLease;
    }

    public Duration fencingCounterTtl() {
        return fencingCounterTtl;
    }

    public List<LockListener> listeners() {
        return listeners;
    }

    /** Longest lock name accepted, in characters (the prefix and braces not counted). */
    public int maxKeyLength() {
        return maxKeyLength;
    }

    /** Builds {@link LockClientOptions}; every setter checks its argument. */
    public static final class Builder {
        private String keyPrefix = DEFAULT_KEY_PREFIX;
        private Duration watchdogLease = DEFAULT_WATCHDOG_LEASE;
        private Duration fencingCounterTtl = DEFAULT_FENCING_COUNTER_TTL;
        private final List<LockListener> listeners = new ArrayList<>();
        private int maxKeyLength = DEFAULT_MAX_KEY_LENGTH;

        private Builder() {
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
            this.maxKeyLength = maxKeyLength;
            return this;
        }

        /** Prefix of every key; must not contain '{' or '}' (the lock name is the hash tag). */
        public Builder keyPrefix(String keyPrefix) {
            Objects.requireNonNull(keyPrefix, "keyPrefix must not be null");
            if (keyPrefix.indexOf('{') >= 0 || keyPrefix.indexOf('}') >= 0) {
                throw new IllegalArgumentException("keyPrefix '" + keyPrefix
                        + "' must not contain '{' or '}': the lock name is wrapped in braces as the Redis Cluster hash tag");
            }
            this.keyPrefix = keyPrefix;
            return this;
        }

        /** Lease of locks taken without one; the watchdog renews it every third. At least 30 ms. */
        public Builder watchdogLease(Duration watchdogLease) {
            this.watchdogLease = Durations.requireAtLeast(watchdogLease, Duration.ofMillis(30), "watchdogLease");
            return this;
        }

        /** How long a lock's fencing counter is kept after its last grant. At least one minute. */
        public Builder fencingCounterTtl(Duration ttl) {
            this.fencingCounterTtl = Durations.requireAtLeast(ttl, Duration.ofMinutes(1), "fencingCounterTtl");
            return this;
        }

        /** Adds a listener for lock events. */
        public Builder listener(LockListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener must not be null"));
            return this;
        }

        public LockClientOptions build() {
            return new LockClientOptions(this);
        }
    }
}
