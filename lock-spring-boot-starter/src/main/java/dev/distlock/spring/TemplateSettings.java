package dev.distlock.spring;

import dev.distlock.core.LockType;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.annotation.OnLostBeforeCommit;
import dev.distlock.spring.aop.DeferredResults;
import dev.distlock.spring.execution.LockRequest;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a {@link LockTemplate}'s copies differ in, each copy checked as it is made (the {@code with...}
 * methods, documented on {@link LockTemplate}), the request each call makes from them, and the checks of a
 * call's key and result, named after the template in errors.
 */
record TemplateSettings(
        String name,
        LockType type,
        @Nullable Duration leaseTime,
        boolean redlock,
        boolean redlockConfigured,
        Duration holdAtLeast,
        @Nullable Duration maxHold,
        int permits) {

    static TemplateSettings defaults(String name, @Nullable Duration defaultLease, boolean redlockConfigured) {
        return new TemplateSettings(
                name, LockType.REENTRANT, defaultLease, false, redlockConfigured, Duration.ZERO, null, 0);
    }

    TemplateSettings withName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("LockTemplate.withName needs a non-blank name, such as \"payments\"");
        }
        return new TemplateSettings(
                name.trim(), type, leaseTime, redlock, redlockConfigured, holdAtLeast, maxHold, permits);
    }

    TemplateSettings withType(LockType type) {
        Objects.requireNonNull(type, "LockTemplate.withType needs a LockType");
        if (type == LockType.REDLOCK) {
            return withType(LockType.REENTRANT).withRedLock();
        }
        if (permits > 0 || type == LockType.SEMAPHORE || type == LockType.FAIR_SEMAPHORE) {
            throw new IllegalArgumentException(
                    caller() + ": set the type before withPermits, which makes the semaphore");
        }
        if (redlock && type != LockType.REENTRANT) {
            throw new IllegalArgumentException(
                    caller() + " uses RedLock, which supports type REENTRANT only, not " + type);
        }
        if (!holdAtLeast.isZero() && type != LockType.REENTRANT) {
            throw new IllegalArgumentException(caller() + " keeps its locks for holdAtLeast " + holdAtLeast
                    + ", which works with type REENTRANT only, not " + type);
        }
        return new TemplateSettings(name, type, leaseTime, redlock, redlockConfigured, holdAtLeast, maxHold, permits);
    }

    TemplateSettings withLeaseTime(Duration lease) {
        if (lease != null
                && (lease.compareTo(RedisLock.MIN_LEASE) < 0 || lease.compareTo(RedisLock.MAX_DURATION) > 0)) {
            throw new IllegalArgumentException(caller() + " got lease " + lease + ": give a lease from "
                    + RedisLock.MIN_LEASE.toMillis() + " ms (well above the round trip to Redis) to "
                    + RedisLock.MAX_DURATION.toDays() + " days, or null for the watchdog lease");
        }
        if (lease != null && maxHold != null) {
            throw new IllegalArgumentException(caller() + " got lease " + lease + " with maxHold " + maxHold
                    + ": a fixed lease is never renewed, so it is already the cap; use withMaxHold(null) first");
        }
        if (lease != null && holdAtLeast.compareTo(lease) > 0) {
            throw new IllegalArgumentException(caller() + " got lease " + lease + " shorter than its holdAtLeast "
                    + holdAtLeast + ": make the lease at least holdAtLeast");
        }
        return new TemplateSettings(name, type, lease, redlock, redlockConfigured, holdAtLeast, maxHold, permits);
    }

    TemplateSettings withMaxHold(@Nullable Duration maxHold) {
        if (maxHold != null
                && (maxHold.compareTo(RedisLock.MIN_LEASE) < 0 || maxHold.compareTo(RedisLock.MAX_DURATION) > 0)) {
            throw new IllegalArgumentException(caller() + " got maxHold " + maxHold + ": give one from "
                    + RedisLock.MIN_LEASE.toMillis() + " ms to " + RedisLock.MAX_DURATION.toDays() + " days");
        }
        if (maxHold != null && leaseTime != null) {
            throw new IllegalArgumentException(caller() + " has the fixed lease " + leaseTime
                    + ", which is never renewed and so already the cap: use withLeaseTime(null) before withMaxHold");
        }
        return new TemplateSettings(name, type, leaseTime, redlock, redlockConfigured, holdAtLeast, maxHold, permits);
    }

    TemplateSettings withHoldAtLeast(Duration holdAtLeast) {
        if (holdAtLeast == null || holdAtLeast.isNegative() || holdAtLeast.compareTo(RedisLock.MAX_DURATION) > 0) {
            throw new IllegalArgumentException(caller() + " got holdAtLeast " + holdAtLeast
                    + ": give a positive duration of at most " + RedisLock.MAX_DURATION.toDays()
                    + " days, or Duration.ZERO to release when the work ends");
        }
        if (!holdAtLeast.isZero() && (type != LockType.REENTRANT || redlock)) {
            throw new IllegalArgumentException(
                    caller() + " has " + (redlock ? "RedLock" : "type " + type)
                            + ", which cannot stay taken after the work ends; holdAtLeast needs type REENTRANT without RedLock");
        }
        if (leaseTime != null && holdAtLeast.compareTo(leaseTime) > 0) {
            throw new IllegalArgumentException(caller() + " got holdAtLeast " + holdAtLeast + " longer than its lease "
                    + leaseTime + ": make it at most the lease (ShedLock: lockAtLeastFor <= lockAtMostFor)");
        }
        return new TemplateSettings(name, type, leaseTime, redlock, redlockConfigured, holdAtLeast, maxHold, permits);
    }

    TemplateSettings withPermits(int permits) {
        if (permits < 1 || redlock || !holdAtLeast.isZero() || (type != LockType.REENTRANT && type != LockType.FAIR)) {
            throw new IllegalArgumentException(caller() + " got permits " + permits + " (type " + type + "): give"
                    + " at least 1 permit, on type REENTRANT or FAIR, without RedLock and holdAtLeast");
        }
        LockType semaphore = type == LockType.FAIR ? LockType.FAIR_SEMAPHORE : LockType.SEMAPHORE;
        return new TemplateSettings(
                name, semaphore, leaseTime, false, redlockConfigured, Duration.ZERO, maxHold, permits);
    }

    TemplateSettings withRedLock() {
        if (!redlockConfigured) {
            throw new IllegalStateException(caller() + " cannot use RedLock: distlock.redlock.nodes is not set;"
                    + " list at least 3 independent Redis masters there");
        }
        if (type != LockType.REENTRANT) {
            throw new IllegalArgumentException(
                    caller() + " has type " + type + ", which RedLock does not support; use REENTRANT");
        }
        if (!holdAtLeast.isZero()) {
            throw new IllegalArgumentException(caller() + " keeps its locks for holdAtLeast " + holdAtLeast
                    + ", which RedLock does not support; use withHoldAtLeast(Duration.ZERO) or no RedLock");
        }
        return new TemplateSettings(name, type, leaseTime, true, redlockConfigured, holdAtLeast, maxHold, permits);
    }

    LockRequest request(List<String> keys, boolean multi, Duration waitTime) {
        if (waitTime == null || waitTime.isNegative()) {
            throw new IllegalArgumentException(
                    caller() + " got wait time " + waitTime + ": give Duration.ZERO to try once, or a positive wait");
        }
        return new LockRequest(
                caller(),
                name,
                type,
                redlock,
                keys,
                multi,
                waitTime,
                leaseTime,
                holdAtLeast,
                maxHold,
                permits,
                OnLostBeforeCommit.DEFAULT);
    }

    String requireKey(String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException(
                    caller() + " needs a key naming what it protects, such as \"order:\" + orderId; got "
                            + (key == null ? "null" : "a blank string"));
        }
        return key;
    }

    /**
     * What the work returned, unless it is work that goes on after the lock is released (a future, a
     * Publisher, ...): the lock would not cover it, so the call fails instead (the lock is released as for
     * any failure).
     */
    <T> T plain(T returned) {
        String why = DeferredResults.of(returned);
        if (why == null) {
            return returned;
        }
        throw new IllegalStateException(
                caller() + " work returned a " + returned.getClass().getName() + ": " + why
                        + ", while the lock is released when the work returns, so that work would run unlocked (work it"
                        + " started already may still be running). Wait for the result inside the work (join(), block()), or"
                        + " use @DistributedLock on a method returning CompletableFuture, Mono or Flux, whose lock follows"
                        + " the result to its end");
    }

    String caller() {
        return "LockTemplate '" + name + "'";
    }
}
