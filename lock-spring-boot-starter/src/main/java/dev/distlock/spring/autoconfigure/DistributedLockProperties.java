package dev.distlock.spring.autoconfigure;

import dev.distlock.core.PubSubMode;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;

/**
 * Settings of distributed locks, under {@code distlock.*}. The groups ({@code aop}, {@code redlock},
 * {@code metrics}, {@code actuator}, {@code health}, {@code leader}, {@code transaction}, {@code fence}) are classes of their own beside this one.
 */
@ConfigurationProperties("distlock")
public class DistributedLockProperties {

    /** Whether distributed locks are auto-configured. */
    private boolean enabled = true;

    /** Where locks live: REDIS (shared by every instance) or LOCAL (this JVM only, NOT distributed; for tests and single-instance development). */
    private Mode mode = Mode.REDIS;

    /** Prefix of every Redis key and channel used for locks; must not contain braces. */
    private String keyPrefix = "lock:";

    /** How long @DistributedLock waits for a busy lock when the annotation gives no waitTime. */
    private Duration waitTime = Duration.ofSeconds(3);

    /** Fixed lease for @DistributedLock methods that give none; unset means the renewed watchdog lease. */
    private Duration leaseTime;

    /** Lease of locks held without a fixed lease; the watchdog renews it every third while held. */
    private Duration watchdogLease = Duration.ofSeconds(30);

    /** How long a lock's fencing-token counter is kept in Redis after its last grant. */
    private Duration fencingCounterTtl = Duration.ofDays(1);

    /**
     * Longest a watchdog lease is renewed for one hold; then its holder is told it lost the lock. Unset: no cap. A
     * method's (or LockTemplate's) own maxHold overrides it.
     */
    private Duration maxHold;

    /**
     * Fraction of max-hold (or of a method's own maxHold) after which a hold is reported once as long (WARN with the
     * holder's stack); 0 for none.
     */
    private double longHoldWarning = 0.8;

    /** What happens to a method whose lock is lost while it runs: LOG (report only) or INTERRUPT its thread. */
    private OnLeaseLost onLeaseLost = OnLeaseLost.LOG;

    /** Whether a @DistributedLock method whose lock was lost while it ran throws LockLeaseExpiredException to its caller. */
    private boolean throwOnLeaseLost = true;

    /** Replicas that must acknowledge each new grant (Redis WAIT) before it counts; 0 turns the check off. */
    private int replicaAcks = 0;

    /** How long a new grant waits for replica-acks acknowledgements before it is given back. */
    private Duration replicaAckTimeout = Duration.ofMillis(200);

    /** Longest resolved lock key accepted, in characters; longer keys fail the call before any Redis command. */
    private int maxKeyLength = 1024;

    /** How long a release, a renewal or one step of a wait without bound waits for Redis, retries included. */
    private Duration operationTimeout = Duration.ofSeconds(5);

    /**
     * How many times in a row a lock held in Redis may pass between this instance's threads without a
     * round trip (lock cohorting, reentrant locks with the watchdog lease; for fair locks, how many of
     * this instance's waiters queued right behind the new holder may take it in turn); 0 turns it off.
     */
    private int localHandOffs = 64;

    /**
     * How long after its grant in Redis (or after the last further block of fencing tokens Redis gave it,
     * which it gives only while no other instance waits) a lock may still pass between this instance's
     * threads.
     */
    private Duration localHandOffWindow = Duration.ofMillis(20);

    /** How lock wake-ups travel: AUTO (sharded pub/sub on a Redis 7 Cluster, else PUBLISH), SHARDED (SPUBLISH; needs Redis 7.0+) or PLAIN (PUBLISH). */
    private PubSubMode pubSub = PubSubMode.AUTO;

    @NestedConfigurationProperty
    private final DistributedLockAopProperties aop = new DistributedLockAopProperties();

    @NestedConfigurationProperty
    private final DistributedLockRedlockProperties redlock = new DistributedLockRedlockProperties();

    @NestedConfigurationProperty
    private final DistributedLockMetricsProperties metrics = new DistributedLockMetricsProperties();

    @NestedConfigurationProperty
    private final DistributedLockActuatorProperties actuator = new DistributedLockActuatorProperties();

    @NestedConfigurationProperty
    private final DistributedLockHealthProperties health = new DistributedLockHealthProperties();

    @NestedConfigurationProperty
    private final DistributedLockLeaderProperties leader = new DistributedLockLeaderProperties();

    @NestedConfigurationProperty
    private final DistributedLockTransactionProperties transaction = new DistributedLockTransactionProperties();

    @NestedConfigurationProperty
    private final DistributedLockFenceProperties fence = new DistributedLockFenceProperties();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Mode getMode() {
        return mode;
    }

    public void setMode(Mode mode) {
        this.mode = mode;
    }

    /** Where locks live. */
    public enum Mode {
        /** On the application's Redis: instances exclude each other. */
        REDIS,
        /** In this JVM only, with the same API, metrics and errors but no Redis: NOT distributed, two instances do not exclude each other. For tests and single-instance development. */
        LOCAL
    }

    public PubSubMode getPubSub() {
        return pubSub;
    }

    public void setPubSub(PubSubMode pubSub) {
        this.pubSub = pubSub;
    }

    public String getKeyPrefix() {
        return keyPrefix;
    }

    public void setKeyPrefix(String keyPrefix) {
        this.keyPrefix = keyPrefix;
    }

    public Duration getWaitTime() {
        return waitTime;
    }

    public void setWaitTime(Duration waitTime) {
        this.waitTime = waitTime;
    }

    public Duration getLeaseTime() {
        return leaseTime;
    }

    public void setLeaseTime(Duration leaseTime) {
        this.leaseTime = leaseTime;
    }

    public Duration getWatchdogLease() {
        return watchdogLease;
    }

    public void setWatchdogLease(Duration watchdogLease) {
        this.watchdogLease = watchdogLease;
    }

    public Duration getMaxHold() {
        return maxHold;
    }

    public void setMaxHold(Duration maxHold) {
        this.maxHold = maxHold;
    }

    public double getLongHoldWarning() {
        return longHoldWarning;
    }

    public void setLongHoldWarning(double longHoldWarning) {
        this.longHoldWarning = longHoldWarning;
    }

    public Duration getFencingCounterTtl() {
        return fencingCounterTtl;
    }

    public void setFencingCounterTtl(Duration fencingCounterTtl) {
        this.fencingCounterTtl = fencingCounterTtl;
    }

    public Duration getOperationTimeout() {
        return operationTimeout;
    }

    public void setOperationTimeout(Duration operationTimeout) {
        this.operationTimeout = operationTimeout;
    }

    public int getLocalHandOffs() {
        return localHandOffs;
    }

    public void setLocalHandOffs(int localHandOffs) {
        this.localHandOffs = localHandOffs;
    }

    public Duration getLocalHandOffWindow() {
        return localHandOffWindow;
    }

    public void setLocalHandOffWindow(Duration localHandOffWindow) {
        this.localHandOffWindow = localHandOffWindow;
    }

    public int getMaxKeyLength() {
        return maxKeyLength;
    }

    public void setMaxKeyLength(int maxKeyLength) {
        this.maxKeyLength = maxKeyLength;
    }

    public int getReplicaAcks() {
        return replicaAcks;
    }

    public void setReplicaAcks(int replicaAcks) {
        this.replicaAcks = replicaAcks;
    }

    public Duration getReplicaAckTimeout() {
        return replicaAckTimeout;
    }

    public void setReplicaAckTimeout(Duration replicaAckTimeout) {
        this.replicaAckTimeout = replicaAckTimeout;
    }

    public OnLeaseLost getOnLeaseLost() {
        return onLeaseLost;
    }

    public void setOnLeaseLost(OnLeaseLost onLeaseLost) {
        this.onLeaseLost = onLeaseLost;
    }

    public boolean isThrowOnLeaseLost() {
        return throwOnLeaseLost;
    }

    public void setThrowOnLeaseLost(boolean throwOnLeaseLost) {
        this.throwOnLeaseLost = throwOnLeaseLost;
    }

    /** What happens to a method whose lock is lost (lease ran out, renewal failed) while it still runs. */
    public enum OnLeaseLost {
        /** Report it (WARN log, distributed.lock.lost, listeners) and let the method run on. */
        LOG,
        /** Also interrupt the method's thread, so code that honours interruption stops instead of running on unprotected. The interrupt flag is cleared when the method returns. */
        INTERRUPT
    }

    public DistributedLockAopProperties getAop() {
        return aop;
    }

    public DistributedLockMetricsProperties getMetrics() {
        return metrics;
    }

    public DistributedLockRedlockProperties getRedlock() {
        return redlock;
    }

    public DistributedLockActuatorProperties getActuator() {
        return actuator;
    }

    public DistributedLockHealthProperties getHealth() {
        return health;
    }

    public DistributedLockLeaderProperties getLeader() {
        return leader;
    }

    public DistributedLockTransactionProperties getTransaction() {
        return transaction;
    }

    public DistributedLockFenceProperties getFence() {
        return fence;
    }
}
