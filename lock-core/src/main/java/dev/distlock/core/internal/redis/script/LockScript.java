package dev.distlock.core.internal.redis.script;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * A Lua script loaded once from a {@code .lua} resource next to this class, with its SHA1 digest
 * computed once for EVALSHA, and its {@linkplain #sharded() sharded variant} for Redis Cluster.
 * Internal: not part of the public API.
 */
public final class LockScript {

    /** A call of PUBLISH in a script, with either quote; before the scripts, which use it as they load. */
    private static final Pattern PUBLISH = Pattern.compile("(redis\\.p?call\\(\\s*)(['\"])PUBLISH\\2");

    /** Acquire or re-enter a reentrant lock. */
    public static final LockScript ACQUIRE = load("token.lua", "client-of.lua", "acquire.lua");
    /** Release one hold; the last one deletes the lock (or reserves it for a client that waits) and publishes a wake-up. */
    public static final LockScript RELEASE = load("token.lua", "client-of.lua", "release.lua");
    /** A waiter of a reentrant lock gives up: it no longer counts as waiting, and hands back a reservation for its client. */
    public static final LockScript LEAVE = load("client-of.lua", "leave.lua");
    /** Reserve the next block of fencing tokens for a reentrant grant handed on locally, while no other client waits. */
    public static final LockScript REFILL = load("token.lua", "client-of.lua", "refill.lua");
    /** Extend a lease while the owner holds it. */
    public static final LockScript RENEW = load("renew.lua");
    /** Acquire or re-enter a read hold of a read/write lock. */
    public static final LockScript RW_READ_ACQUIRE = load("token.lua", "rw-settle.lua", "rw-read-acquire.lua");
    /** Acquire or re-enter the write hold of a read/write lock. */
    public static final LockScript RW_WRITE_ACQUIRE = load("token.lua", "rw-settle.lua", "rw-write-acquire.lua");
    /** Release one read or write hold; a release that lets waiters in publishes a wake-up. */
    public static final LockScript RW_RELEASE = load("rw-settle.lua", "rw-release.lua");
    /** A writer of a read/write lock that waited gives up: it no longer holds new readers back. */
    public static final LockScript RW_LEAVE = load("rw-leave.lua");
    /** Extend one read or write hold's own lease and the hash TTL. */
    public static final LockScript RW_RENEW = load("rw-settle.lua", "rw-renew.lua");
    /** Delete a lock whoever holds it. */
    public static final LockScript FORCE_RELEASE = load("force-release.lua");
    /** Acquire or re-enter a fair lock in arrival order, queueing the caller when it must wait. */
    public static final LockScript FAIR_ACQUIRE = load("token.lua", "fair-queue.lua", "fair-acquire.lua");
    /** Release one hold of a fair lock; the last one grants the lock to the next live waiter. */
    public static final LockScript FAIR_RELEASE = load("token.lua", "fair-queue.lua", "fair-release.lua");
    /** Remove a waiter that gave up from a fair lock's queue, giving back a grant made to it meanwhile. */
    public static final LockScript FAIR_LEAVE = load("token.lua", "fair-queue.lua", "fair-leave.lua");
    /** Take permits of a semaphore for one new holder, fair or not. */
    public static final LockScript SEM_ACQUIRE = load("token.lua", "sem-settle.lua", "sem-acquire.lua");
    /** Give back one holder's permits of a semaphore and wake those who wait. */
    public static final LockScript SEM_RELEASE = load("sem-settle.lua", "sem-release.lua");
    /** Extend one semaphore holder's own lease and the hash TTL. */
    public static final LockScript SEM_RENEW = load("token.lua", "sem-settle.lua", "sem-renew.lua");
    /** How many permits of a semaphore are held. */
    public static final LockScript SEM_USED = load("sem-settle.lua", "sem-used.lua");
    /** A waiter of a fair semaphore gives up its place, giving back permits granted to it meanwhile. */
    public static final LockScript SEM_LEAVE = load("sem-settle.lua", "sem-leave.lua");
    /** Raise a lock's fencing counter to a token while the owner holds the lock (RedLock). */
    public static final LockScript RAISE_FENCE = load("raise-fence.lua");

    private final String name;
    private final String body;
    private final String sha1;
    private final LockScript sharded;

    private LockScript(String name, String body) {
        this(name, body, true);
    }

    /** With {@code derive} false, the sharded variant itself, whose own sharded variant is itself. */
    private LockScript(String name, String body, boolean derive) {
        this.name = name;
        this.body = body;
        this.sha1 = sha1(body);
        String spublish = PUBLISH.matcher(body).replaceAll("$1$2SPUBLISH$2");
        this.sharded = !derive || spublish.equals(body) ? this : new LockScript(name, spublish, false);
    }

    /**
     * Loads a script from resources of this package; several resources are joined in order, so
     * scripts can share a prelude of Lua functions (Redis scripts cannot include one another).
     */
    public static LockScript load(String... resources) {
        StringBuilder body = new StringBuilder();
        for (String resource : resources) {
            try (InputStream in = LockScript.class.getResourceAsStream(resource)) {
                if (in == null) {
                    throw new IllegalStateException("Lua script " + resource + " missing from the classpath");
                }
                body.append(new String(in.readAllBytes(), StandardCharsets.UTF_8))
                        .append('\n');
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read Lua script " + resource, e);
            }
        }
        return new LockScript(resources[resources.length - 1], body.toString());
    }

    public String name() {
        return name;
    }

    public String body() {
        return body;
    }

    public String sha1() {
        return sha1;
    }

    /**
     * This script with every PUBLISH made an SPUBLISH (Redis 7's sharded pub/sub), or this script when
     * it publishes nothing. On Redis Cluster a PUBLISH is broadcast to every node over the cluster bus;
     * an SPUBLISH stays on the shard that owns its channel's slot, which is the lock's own slot, as the
     * channel shares the lock's hash tag. Derived from the one text, so every script, new ones too,
     * has its variant; only a Redis Cluster client that subscribes with SSUBSCRIBE runs it (local mode's
     * in-process store runs the plain text and is never given this one).
     */
    public LockScript sharded() {
        return sharded;
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of()
                    .formatHex(MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 unavailable", e);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
