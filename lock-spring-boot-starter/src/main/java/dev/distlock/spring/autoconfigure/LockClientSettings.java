package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockListener;
import dev.distlock.core.PubSubMode;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.DistributedLockConfigurationException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.protocol.RedisProtocolException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.PropertyResolver;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The lock client's settings from the {@code distlock.*} properties: its options, each checked with an
 * error that names the property and echoes the value as typed, and its connection.
 */
final class LockClientSettings {

    private LockClientSettings() {}

    /**
     * The lock client's options from the properties, each checked by lock-core's own rules (a bad one fails
     * start-up naming it), then handed to the {@link LockClientOptionsCustomizer} beans in order. Local mode
     * builds them too, so a configuration fails the same way in either mode.
     */
    static LockClientOptions options(
            DistributedLockProperties properties,
            ObjectProvider<LockListener> listeners,
            ObjectProvider<LockClientOptionsCustomizer> customizers,
            @Nullable PropertyResolver environment) {
        LockClientOptions.Builder builder = LockClientOptions.builder();
        Apply apply = (property, value, setter) -> apply(property, value, setter, environment);
        apply.to("distlock.key-prefix", properties.getKeyPrefix(), () -> builder.keyPrefix(properties.getKeyPrefix()));
        apply.to(
                "distlock.watchdog-lease",
                properties.getWatchdogLease(),
                () -> builder.watchdogLease(properties.getWatchdogLease()));
        apply.to(
                "distlock.fencing-counter-ttl",
                properties.getFencingCounterTtl(),
                () -> builder.fencingCounterTtl(properties.getFencingCounterTtl()));
        apply.to(
                "distlock.max-key-length",
                properties.getMaxKeyLength(),
                () -> builder.maxKeyLength(properties.getMaxKeyLength()));
        apply.to(
                "distlock.operation-timeout",
                properties.getOperationTimeout(),
                () -> builder.operationTimeout(properties.getOperationTimeout()));
        // A pair is set twice, first with the core's default in place of its second value: an error names the bad one.
        apply.to(
                "distlock.local-hand-offs",
                properties.getLocalHandOffs(),
                () -> builder.localHandOffs(
                        properties.getLocalHandOffs(), LockClientOptions.DEFAULT_LOCAL_HAND_OFF_WINDOW));
        apply.to(
                "distlock.local-hand-off-window",
                properties.getLocalHandOffWindow(),
                () -> builder.localHandOffs(properties.getLocalHandOffs(), properties.getLocalHandOffWindow()));
        if (properties.getReplicaAcks() != 0) {
            apply.to(
                    "distlock.replica-acks",
                    properties.getReplicaAcks(),
                    () -> builder.replicaAcks(
                            properties.getReplicaAcks(),
                            LockClientOptions.defaults().replicaAckTimeout()));
            apply.to(
                    "distlock.replica-ack-timeout",
                    properties.getReplicaAckTimeout(),
                    () -> builder.replicaAcks(properties.getReplicaAcks(), properties.getReplicaAckTimeout()));
        }
        if (properties.getMaxHold() != null) {
            apply.to("distlock.max-hold", properties.getMaxHold(), () -> builder.maxHold(properties.getMaxHold(), 0));
        }
        // also for the caps of methods and templates that set their own maxHold
        apply.to(
                "distlock.long-hold-warning",
                properties.getLongHoldWarning(),
                () -> builder.longHoldWarning(properties.getLongHoldWarning()));
        // not a client option, but checked with them so that it fails start-up in both modes, endpoint exposed or not
        int listed = properties.getActuator().getMaxListedLocks();
        apply.to("distlock.actuator.max-listed-locks", listed, () -> {
            if (listed < 1) {
                throw new IllegalArgumentException(
                        "it is " + listed + ", but the all-instances listing must read at least 1 lock");
            }
        });
        apply.to("distlock.pub-sub", properties.getPubSub(), () -> builder.pubSub(properties.getPubSub()));
        builder.interruptOnLeaseLost(properties.getOnLeaseLost() == DistributedLockProperties.OnLeaseLost.INTERRUPT);
        listeners.orderedStream().forEach(builder::listener);
        customizers.orderedStream().forEach(customizer -> {
            try {
                customizer.customize(builder);
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new DistributedLockConfigurationException(
                        "Invalid lock client option set by the LockClientOptionsCustomizer " + customizer + ": "
                                + e.getMessage(),
                        "Fix the value that LockClientOptionsCustomizer bean sets",
                        e);
            }
        });
        return builder.build();
    }

    /**
     * The lock client on {@code redisClient}. lock-core refuses, with an IllegalArgumentException in its own
     * terms, replica acknowledgements on Redis Cluster and sharded pub/sub on a Redis older than 7; to the
     * application each is a bad property.
     */
    static LockClient connect(AbstractRedisClient redisClient, LockClientOptions options) {
        try {
            return LockClient.create(redisClient, options);
        } catch (IllegalArgumentException e) {
            if (options.replicaAcks() == 0 || !(redisClient instanceof RedisClusterClient)) {
                if (options.pubSub() == PubSubMode.SHARDED) {
                    throw new DistributedLockConfigurationException(
                            "Invalid distlock.pub-sub for this Redis: " + e.getMessage(),
                            "Set distlock.pub-sub to auto (sharded pub/sub on a Cluster whose masters all run Redis 7.0"
                                    + " or later, PUBLISH elsewhere) or plain, or upgrade Redis to 7.0 or later",
                            e);
                }
                throw e;
            }
            throw new DistributedLockConfigurationException(
                    "Invalid distlock.replica-acks: it is " + options.replicaAcks()
                            + ", but Redis is a Cluster, where WAIT cannot reach the node that holds each lock",
                    "Remove distlock.replica-acks (or set it to 0) on Redis Cluster: replica"
                            + " acknowledgements need a standalone or Sentinel Redis",
                    e);
        }
    }

    /** Sets one option from {@code property}, whose bound value is {@code value}. */
    @FunctionalInterface
    private interface Apply {
        void to(String property, @Nullable Object value, Runnable setter);
    }

    private static void apply(
            String property, @Nullable Object value, Runnable setter, @Nullable PropertyResolver environment) {
        try {
            setter.run();
        } catch (IllegalArgumentException | NullPointerException e) {
            String message = String.valueOf(e.getMessage());
            String typed = typed(environment, property, value);
            // lock-core prints a Duration as Duration.toString() ("PT-1S"); the user typed it otherwise ("-1s").
            if (value instanceof Duration && !typed.equals(String.valueOf(value))) {
                message = message.replace(String.valueOf(value), typed);
            }
            throw new DistributedLockConfigurationException(
                    "Invalid " + property + ": " + message, "Fix " + property + " in your configuration", e);
        }
    }

    /** {@code value} of {@code property} if positive ({@code positive}) or not negative; else a start-up failure. */
    static Duration checked(Duration value, String property, boolean positive) {
        return checked(value, property, positive, null);
    }

    /** {@link #checked(Duration, String, boolean)}, whose error echoes the value as typed in {@code environment}. */
    static Duration checked(Duration value, String property, boolean positive, @Nullable PropertyResolver environment) {
        if (value == null || value.isNegative() || (positive && value.isZero())) {
            throw new DistributedLockConfigurationException(
                    "Invalid " + property + ": " + typed(environment, property, value),
                    "Set " + property + " to a " + (positive ? "positive" : "non-negative")
                            + " duration such as 2s or 500ms");
        }
        return value;
    }

    /** The default wait of locks: not negative, at most {@link RedisLock#MAX_DURATION}, as a lock call accepts. */
    static Duration checkedWait(Duration value, @Nullable PropertyResolver environment) {
        String property = "distlock.wait-time";
        return within(
                checked(value, property, false, environment),
                property,
                Duration.ZERO,
                "Set " + property + " to at most " + RedisLock.MAX_DURATION.toDays() + " days",
                environment);
    }

    /** The default fixed lease of locks, or null: within the limits a lock call accepts. */
    static @Nullable Duration checkedLease(@Nullable Duration value, @Nullable PropertyResolver environment) {
        String property = "distlock.lease-time";
        return value == null
                ? null
                : within(
                        checked(value, property, true, environment),
                        property,
                        RedisLock.MIN_LEASE,
                        "Set " + property + " well above the round trip to Redis and at most "
                                + RedisLock.MAX_DURATION.toDays() + " days, or leave it unset for the watchdog lease",
                        environment);
    }

    /** {@code value} of {@code property} if from {@code min} to {@link RedisLock#MAX_DURATION}; else a start-up failure. */
    private static Duration within(
            Duration value, String property, Duration min, String fix, @Nullable PropertyResolver environment) {
        if (value.compareTo(min) < 0 || value.compareTo(RedisLock.MAX_DURATION) > 0) {
            throw new DistributedLockConfigurationException(
                    "Invalid " + property + ": " + typed(environment, property, value) + ", outside the "
                            + min.toMillis() + " ms to " + RedisLock.MAX_DURATION.toDays() + " days a lock accepts",
                    fix);
        }
        return value;
    }

    /**
     * {@code value} of {@code property} as the user typed it ("-1s", not Duration's "PT-1S"), read from the
     * environment (which resolves relaxed names and placeholders); {@code value} itself when it was not typed.
     */
    static String typed(@Nullable PropertyResolver environment, String property, @Nullable Object value) {
        String raw = environment == null ? null : environment.getProperty(property);
        return raw != null ? raw : String.valueOf(value);
    }

    /** What went wrong at the bottom of {@code e}, in the user's terms where Lettuce's are obscure. */
    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (true) {
            if (t instanceof RedisProtocolException) {
                // Lettuce says "Invalid first byte: 60 (<) at buffer index 1 decoding using null": the reply was not
                // RESP.
                return "the server there does not speak the Redis protocol (it answered something else, such as HTTP):"
                        + " another service listens on that host and port";
            }
            if (t.getCause() == null || t.getCause() == t) {
                break;
            }
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }

    /** How start-up errors name the Redis a Lettuce connection factory points to. */
    static String describe(LettuceConnectionFactory factory) {
        if (factory.getClusterConfiguration() != null) {
            return "cluster " + factory.getClusterConfiguration().getClusterNodes();
        }
        if (factory.getSentinelConfiguration() != null) {
            return "sentinel master '" + factory.getSentinelConfiguration().getMaster() + "' via "
                    + factory.getSentinelConfiguration().getSentinels();
        }
        return factory.getHostName() + ":" + factory.getPort();
    }
}
