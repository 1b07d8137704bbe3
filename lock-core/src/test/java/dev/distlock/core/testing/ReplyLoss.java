package dev.distlock.core.testing;

import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.testsupport.FaultRelay;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.Future;

/**
 * Loses the reply of one step of a lock owner: the relay holds replies back, the step starts, and
 * once Redis has run it (the relay has the reply in hand, and {@code ranInRedis} holds) every
 * connection is dropped, so the reply never arrives and Lettuce or the engine sends the command
 * again.
 */
public final class ReplyLoss {

    private final FaultRelay relay;
    private final LockOwner owner;
    private final boolean onlyItsConnection;

    public ReplyLoss(FaultRelay relay, LockOwner owner) {
        this(relay, owner, false);
    }

    private ReplyLoss(FaultRelay relay, LockOwner owner, boolean onlyItsConnection) {
        this.relay = relay;
        this.owner = owner;
        this.onlyItsConnection = onlyItsConnection;
    }

    /**
     * The same, dropping only the connection the reply was held on: the client's subscriptions stay,
     * so no re-subscription makes its waiters look again.
     */
    public ReplyLoss onlyItsConnection() {
        return new ReplyLoss(relay, owner, true);
    }

    /** Takes and releases a lock of {@code client} once on {@code owner}, so that a held reply later is a script's answer, not NOSCRIPT. */
    public static void loadScripts(LockClient client, LockOwner owner) {
        RedisLock warmUp = client.getLock(Names.fresh("warm-up"));
        owner.act(() -> {
            warmUp.lock();
            warmUp.unlock();
        });
    }

    /** Loses the reply of {@code step}; returns the step, still running. */
    public <T> Future<T> lose(FaultRelay.Drop how, Callable<Boolean> ranInRedis, Callable<T> step) {
        relay.holdReplies();
        Future<T> running = owner.submit(step);
        await("Redis ran the command and the relay holds its reply")
                .atMost(Duration.ofSeconds(10))
                .pollInterval(Duration.ofMillis(5))
                .until(() -> ranInRedis.call() && relay.pendingReplyBytes() > 0);
        if (onlyItsConnection) {
            relay.dropHolding(how);
        } else {
            relay.drop(how);
        }
        return running;
    }

    /** {@link #lose(FaultRelay.Drop, Callable, Callable)} for a step that returns nothing. */
    public Future<Void> lose(FaultRelay.Drop how, Callable<Boolean> ranInRedis, LockOwner.Step step) {
        return lose(how, ranInRedis, () -> {
            step.run();
            return null;
        });
    }

    /** Loses the reply of {@code step}, the only command in flight: the relay having a reply shows that Redis ran it. */
    public Future<Void> lose(FaultRelay.Drop how, LockOwner.Step step) {
        return lose(how, () -> true, step);
    }
}
