package dev.distlock.core.internal.support;

import dev.distlock.core.LockClientOptions;
import dev.distlock.core.LockListener;
import dev.distlock.core.PubSubMode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The values of {@link LockClientOptions}, in one place: its builder fills one, checking each as it is set,
 * and each options object keeps its own {@linkplain #copy() copy}, which nothing changes afterwards. Only
 * {@link LockClientOptions} touches them; everyone else reads its accessors.
 */
public final class OptionValues {

    public String keyPrefix = LockClientOptions.DEFAULT_KEY_PREFIX;
    public Duration watchdogLease = LockClientOptions.DEFAULT_WATCHDOG_LEASE;
    public Duration fencingCounterTtl = LockClientOptions.DEFAULT_FENCING_COUNTER_TTL;
    public boolean interruptOnLeaseLost;
    public int replicaAcks;
    public Duration replicaAckTimeout = Duration.ofMillis(200);
    public List<LockListener> listeners = new ArrayList<>();
    public int maxKeyLength = LockClientOptions.DEFAULT_MAX_KEY_LENGTH;
    public Duration operationTimeout = LockClientOptions.DEFAULT_OPERATION_TIMEOUT;
    public int localHandOffs = LockClientOptions.DEFAULT_LOCAL_HAND_OFFS;
    public Duration localHandOffWindow = LockClientOptions.DEFAULT_LOCAL_HAND_OFF_WINDOW;

    @Nullable
    public Duration maxHold;

    public double longHoldWarning;
    public PubSubMode pubSub = PubSubMode.AUTO;
    public boolean grantsInMessages = true;

    /** These values, the listeners in an unmodifiable list of their own. */
    public OptionValues copy() {
        OptionValues c = new OptionValues();
        c.keyPrefix = keyPrefix;
        c.watchdogLease = watchdogLease;
        c.fencingCounterTtl = fencingCounterTtl;
        c.interruptOnLeaseLost = interruptOnLeaseLost;
        c.replicaAcks = replicaAcks;
        c.replicaAckTimeout = replicaAckTimeout;
        c.listeners = List.copyOf(listeners);
        c.maxKeyLength = maxKeyLength;
        c.operationTimeout = operationTimeout;
        c.localHandOffs = localHandOffs;
        c.localHandOffWindow = localHandOffWindow;
        c.maxHold = maxHold;
        c.longHoldWarning = longHoldWarning;
        c.pubSub = pubSub;
        c.grantsInMessages = grantsInMessages;
        return c;
    }
}
