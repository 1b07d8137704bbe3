package dev.distlock.core;

/**
 * How a {@link LockClient}'s wake-ups travel: the message a release publishes for the lock's waiters, and
 * the subscriptions they wait on. Set with {@link LockClientOptions.Builder#pubSub(PubSubMode)}; the client
 * logs, as it connects, which it uses and whether {@link #AUTO} or the options chose it. Every client of the
 * same locks should travel the same way: a sharded subscriber does not hear a PUBLISH, nor a plain one an
 * SPUBLISH, so the waiters of a client that chose otherwise look again only when the holder's lease ends.
 * Local mode ({@link LockClient#local}) has no pub/sub and ignores it; a {@link RedLockClient} waits by
 * retrying, so on its nodes (standalone masters: PUBLISH under AUTO) it only says how their releases publish.
 *
 * <pre>{@code
 * LockClientOptions options = LockClientOptions.builder()
 *         .pubSub(PubSubMode.PLAIN) // a proxy in front of the Cluster refuses SSUBSCRIBE
 *         .build();
 * }</pre>
 */
public enum PubSubMode {
    /**
     * The default: sharded pub/sub on a Redis Cluster whose every master runs Redis 7.0 or later, else
     * PUBLISH and SUBSCRIBE (an older Cluster, a standalone or Sentinel Redis, RedLock's nodes).
     */
    AUTO,
    /**
     * Redis 7's sharded pub/sub (SPUBLISH, SSUBSCRIBE): on a Cluster a wake-up stays on the shard that owns
     * the lock's slot instead of being broadcast to every node. Needs Redis 7.0 or later on every master:
     * creating a client on an older one fails with an {@link IllegalArgumentException} that says so (when
     * the version cannot be read, the client trusts the option and warns). On a standalone or Sentinel
     * Redis 7 it works too, but gains nothing over {@link #PLAIN}.
     */
    SHARDED,
    /**
     * PUBLISH and SUBSCRIBE, which a Cluster broadcasts to every node: for a proxy or managed service that
     * refuses SSUBSCRIBE, or while other clients of the same locks (an older distlock) still publish so.
     */
    PLAIN
}
