package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.internal.engine.FairKind;
import dev.distlock.core.internal.engine.ReadWriteKind;
import dev.distlock.core.internal.engine.ReentrantKind;
import dev.distlock.core.internal.engine.ScriptArgs;
import dev.distlock.core.internal.engine.SemaphoreKind;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RedisMonitor;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanCursor;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

/**
 * Every script, called as the lock kinds call it (ReentrantKind, FairKind, ReadWriteKind and the
 * engine's force-release and raise-fence ARGV), touches no key but the lock's own: the lock key and
 * the keys derived from it (fence counter, fair queue and timeouts, release notes). A key outside
 * would break the Cluster guarantee that a lock's keys live and move together in one slot, and
 * could be left behind in Redis. Seen two ways: MONITOR shows every key each script command reads
 * or writes, and a SCAN afterwards shows what is left. MONITOR also shows each EVALSHA as sent,
 * so the callers' KEYS and ARGV are checked against what each script reads.
 */
class DerivedKeysScriptTest extends ScriptTestSupport {

    private static final String END_OF_RUN = "end-of-run";
    /** Script commands whose keys are all their arguments. */
    private static final Set<String> ALL_ARGS_KEYS = Set.of("DEL", "EXISTS");
    /** Script commands that name no key (PUBLISH names a channel). */
    private static final Set<String> NO_KEYS = Set.of("TIME", "PUBLISH");
    /** Script commands whose one key is their first argument. */
    private static final Set<String> FIRST_ARG_KEY = Set.of(
            "GET", "SET", "PEXPIRE", "PTTL", "HEXISTS", "HGET", "HMGET", "HSET", "HSETNX", "HDEL", "HGETALL", "LINDEX",
            "LPOP", "LREM", "RPUSH", "ZSCORE", "ZADD", "ZREM");

    DerivedKeysScriptTest() {
        super("derived");
    }

    @Test
    void everyScriptTouchesOnlyTheLocksOwnDerivedKeys() throws Exception {
        LockKeys fair = LockKeys.of("lock:", Names.fresh("derived-fair"));
        LockKeys rw = LockKeys.of("lock:", Names.fresh("derived-rw"));
        LockKeys sem = LockKeys.of("lock:", Names.fresh("derived-sem"));

        List<RedisMonitor.Command> commands = runEveryScriptWatched(fair, rw, sem);

        Set<String> touched = new HashSet<>();
        commands.stream()
                .filter(RedisMonitor.Command::fromScript)
                .forEach(command -> touched.addAll(keysOf(command.words())));
        Set<String> left = scanAll();
        Predicate<String> derived = key ->
                isDerivedKey(key, keys) || isDerivedKey(key, fair) || isDerivedKey(key, rw) || isDerivedKey(key, sem);
        assertThat(touched)
                .as("keys the scripts read or wrote")
                .filteredOn(derived.negate())
                .isEmpty();
        assertThat(left).as("keys left in Redis").filteredOn(derived.negate()).isEmpty();
        // not vacuous: every kind of derived key was touched
        assertThat(touched)
                .contains(
                        keys.lock(),
                        keys.fence(),
                        keys.lock() + ":released:" + A,
                        keys.lock() + ":released:~left:" + D,
                        fair.lock(),
                        fair.fence(),
                        fair.queue(),
                        fair.timeouts(),
                        fair.waiting(),
                        fair.lock() + ":released:" + B,
                        rw.lock(),
                        rw.fence(),
                        rw.writers(),
                        rw.lock() + ":released:w:" + A,
                        rw.lock() + ":released:r:" + A,
                        rw.lock() + ":released:~left:w:" + C,
                        sem.lock(),
                        sem.fence(),
                        sem.permits(),
                        sem.waiters(),
                        sem.lock() + ":released:" + A,
                        sem.lock() + ":released:~left:" + C);
    }

    /**
     * The callers and the scripts agree on the shape of a call: as many KEYS and ARGV as the script
     * reads (its highest KEYS[n] and ARGV[n]), no fewer (a nil argument) and no more (a stale one).
     * Force-release and raise-fence are sent here as LockEngine sends them, the rest by the lock kinds.
     */
    @Test
    void everyCallerPassesAsManyKeysAndArgumentsAsItsScriptReads() throws Exception {
        Map<String, LockScript> bySha = loadEveryScript();

        List<RedisMonitor.Command> commands = runEveryScriptWatched(
                LockKeys.of("lock:", Names.fresh("derived-fair")),
                LockKeys.of("lock:", Names.fresh("derived-rw")),
                LockKeys.of("lock:", Names.fresh("derived-sem")));

        assertEveryScriptCalledInItsShape(commands, bySha);
    }

    /**
     * The same through the engine itself: locks of every kind taken, renewed by the watchdog, given
     * up while waiting, released and force-released, and a RedLock over this Redis and two more.
     */
    @Test
    void theEngineCallsEveryScriptInItsShapeAndTouchesOnlyDerivedKeys() throws Exception {
        Map<String, LockScript> bySha = loadEveryScript();
        // A watchdog lease short enough to see renewals soon (every lease/3), long enough that a renewal a
        // loaded host sends late still lands before the lease ends: the holds here must not be lost.
        LockClientOptions options =
                LockClientOptions.builder().watchdogLease(Duration.ofSeconds(2)).build();
        List<RedisURI> redLockNodes = List.of(
                RedisURI.create(redis.server().uri()),
                RedisURI.create(redis.startAnother().uri()),
                RedisURI.create(redis.startAnother().uri()));
        String plainName = Names.fresh("engine");
        String fairName = Names.fresh("engine-fair");
        String rwName = Names.fresh("engine-rw");
        String redLockName = Names.fresh("engine-redlock");
        String semName = Names.fresh("engine-sem");
        List<RedisMonitor.Command> commands = new ArrayList<>();
        try (RedisMonitor monitor = RedisMonitor.start(redis.server());
                LockClient client =
                        LockClient.create(RedisURI.create(redis.server().uri()), options);
                LockClient otherInstance =
                        LockClient.create(RedisURI.create(redis.server().uri()), options);
                // The default 30 s lease: a RedLock node's answer is awaited for a hundredth of the lease (at
                // least 50 ms), which a loaded host missed with a 2 s lease ("only 1 of 3 nodes answered").
                RedLockClient redLock = RedLockClient.connect(redLockNodes, LockClientOptions.defaults())) {
            RedisLock plain = client.getLock(plainName);
            plain.lock();
            commands.addAll(monitor.commandsUntil(LockScript.RENEW.sha1())); // the watchdog renewed it
            // Another instance's handle: one of this client would wait at its local gate, not in Redis.
            assertThat(otherInstance
                            .getLock(plainName)
                            .tryLockAsync(Waits.RUNS_OUT)
                            .toCompletableFuture()
                            .get(10, java.util.concurrent.TimeUnit.SECONDS))
                    .as("a handle waited in Redis, then gave up (and left)")
                    .isEmpty();
            // Its leave runs in the background: until it lands, the release reserves the lock for that instance.
            String plainKey =
                    LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, plainName).lock();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> !sync.hexists(plainKey, "~w"));
            plain.unlock();
            assertThat(plain.forceUnlock()).as("already free").isFalse();
            // Threads of one client passing the lock on: past half a token block the holder asks for the next.
            for (int round = 0; round < 50; round++) {
                handOnAmongThreads(client.getLock(plainName), 3, 20);
                String mark = "refill-round-" + round;
                sync.echo(mark);
                List<RedisMonitor.Command> seen = monitor.commandsUntil(mark);
                commands.addAll(seen);
                if (seen.stream().anyMatch(c -> c.words().contains(LockScript.REFILL.sha1()))) {
                    break;
                }
            }

            RedisLock fair = client.getFairLock(fairName);
            fair.lock();
            assertThat(OtherThread.call(() -> fair.tryLock(Waits.RUNS_OUT)))
                    .as("queued, then gave up")
                    .isFalse();
            fair.unlock();

            RedisReadWriteLock rw = client.getReadWriteLock(rwName);
            rw.writeLock().lock();
            rw.readLock().lock();
            assertThat(otherInstance
                            .getReadWriteLock(rwName)
                            .writeLock()
                            .tryLockAsync(Waits.RUNS_OUT)
                            .toCompletableFuture()
                            .get(10, java.util.concurrent.TimeUnit.SECONDS))
                    .as("a writer waited in Redis, then gave up (and left)")
                    .isEmpty();
            commands.addAll(monitor.commandsUntil(LockScript.RW_LEAVE.sha1()));
            commands.addAll(monitor.commandsUntil(LockScript.RW_RENEW.sha1()));
            rw.readLock().unlock();
            rw.writeLock().unlock();

            // Semaphores: a fair one whose waiter gives up, renewed by the watchdog, counted, released, force-released.
            RedisSemaphore sem = client.getFairSemaphore(semName, 1);
            LockHandle permit = sem.acquire();
            assertThat(otherInstance.getFairSemaphore(semName, 1).tryAcquire(Waits.RUNS_OUT))
                    .as("waited in line, then gave up (and left)")
                    .isEmpty();
            commands.addAll(monitor.commandsUntil(LockScript.SEM_LEAVE.sha1()));
            commands.addAll(monitor.commandsUntil(LockScript.SEM_RENEW.sha1()));
            assertThat(sem.availablePermits()).isZero();
            permit.unlock();
            assertThat(sem.forceReleaseAll()).as("already free").isFalse();

            RedisLock red = redLock.getLock(redLockName);
            // The fence is raised on the nodes of the first granting majority; the watched node (slowed by
            // MONITOR) is not always among them, so lock until it was.
            for (int round = 0; round < 50; round++) {
                red.lock();
                red.unlock();
                String mark = "redlock-round-" + round;
                sync.echo(mark);
                List<RedisMonitor.Command> seen = monitor.commandsUntil(mark);
                commands.addAll(seen);
                if (seen.stream().anyMatch(c -> c.words().contains(LockScript.RAISE_FENCE.sha1()))) {
                    break;
                }
            }

            sync.echo(END_OF_RUN);
            commands.addAll(monitor.commandsUntil(END_OF_RUN));
        }

        assertEveryScriptCalledInItsShape(commands, bySha);
        String prefix = LockClientOptions.DEFAULT_KEY_PREFIX;
        List<LockKeys> locks = List.of(
                LockKeys.of(prefix, plainName),
                LockKeys.of(prefix, fairName),
                LockKeys.of(prefix, rwName),
                LockKeys.of(prefix, semName),
                LockKeys.of(prefix, redLockName));
        Set<String> touched = new HashSet<>();
        commands.stream()
                .filter(RedisMonitor.Command::fromScript)
                .forEach(command -> touched.addAll(keysOf(command.words())));
        assertThat(touched)
                .as("keys the scripts read or wrote")
                .isNotEmpty()
                .filteredOn(key -> locks.stream().noneMatch(lock -> isDerivedKey(key, lock)))
                .isEmpty();
    }

    /** {@code threads} threads take {@code lock} {@code times} times each, one at a time. */
    private static void handOnAmongThreads(RedisLock lock, int threads, int times) throws Exception {
        List<OtherThread<Void>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(OtherThread.start(() -> {
                for (int i = 0; i < times; i++) {
                    lock.lock();
                    lock.unlock();
                }
                return null;
            }));
        }
        for (OtherThread<Void> worker : workers) {
            worker.result.get(30, TimeUnit.SECONDS);
        }
    }

    /** SCRIPT LOADs every script, so that every later call is an EVALSHA; returns them by SHA1. */
    private Map<String, LockScript> loadEveryScript() throws Exception {
        Map<String, LockScript> bySha = new HashMap<>();
        for (LockScript script : ScriptRunnerTest.allScripts()) {
            bySha.put(sync.scriptLoad(script.body()), script);
        }
        return bySha;
    }

    /**
     * Each EVALSHA passes as many KEYS and ARGV as its script reads (its highest KEYS[n] and
     * ARGV[n]): no fewer (a nil argument) and no more (a stale one); and every script was called.
     */
    private static void assertEveryScriptCalledInItsShape(
            List<RedisMonitor.Command> commands, Map<String, LockScript> bySha) {
        Set<LockScript> called = new HashSet<>();
        for (RedisMonitor.Command command : commands) {
            List<String> words = command.words();
            if (command.fromScript() || !words.get(0).toUpperCase(Locale.ROOT).startsWith("EVAL")) {
                continue;
            }
            assertThat(words.get(0))
                    .as("after SCRIPT LOAD no script needs EVAL: %s", words)
                    .isEqualToIgnoringCase("EVALSHA");
            LockScript script = bySha.get(words.get(1));
            assertThat(script)
                    .as("EVALSHA of a script LockScript declares: %s", words)
                    .isNotNull();
            int keyCount = Integer.parseInt(words.get(2));
            int argCount = words.size() - 3 - keyCount;
            assertThat(keyCount).as("KEYS passed to %s: %s", script, words).isEqualTo(highestIndex(script, "KEYS"));
            assertThat(argCount).as("ARGV passed to %s: %s", script, words).isEqualTo(highestIndex(script, "ARGV"));
            called.add(script);
        }
        assertThat(called).as("every script was called").containsExactlyInAnyOrderElementsOf(bySha.values());
    }

    private static int highestIndex(LockScript script, String table) {
        Matcher m = Pattern.compile(table + "\\[(\\d+)\\]").matcher(script.body());
        int highest = 0;
        while (m.find()) {
            highest = Math.max(highest, Integer.parseInt(m.group(1)));
        }
        return highest;
    }

    /** Runs every script through its usual caller on a flushed Redis; returns what MONITOR saw meanwhile. */
    private List<RedisMonitor.Command> runEveryScriptWatched(LockKeys fair, LockKeys rw, LockKeys sem)
            throws Exception {
        sync.flushall();
        try (RedisMonitor monitor = RedisMonitor.start(redis.server())) {
            runReentrantScripts();
            runFairScripts(fair);
            runReadWriteScripts(rw);
            runSemaphoreScripts(sem);
            sync.echo(END_OF_RUN); // MONITOR shows commands in order: once this one is in, all are
            return monitor.commandsUntil(END_OF_RUN);
        }
    }

    private static List<String> keysOf(List<String> command) {
        String name = command.get(0).toUpperCase(Locale.ROOT);
        List<String> args = command.subList(1, command.size());
        if (ALL_ARGS_KEYS.contains(name)) {
            return args;
        }
        if (NO_KEYS.contains(name)) {
            return List.of();
        }
        assertThat(FIRST_ARG_KEY)
                .as("a script runs %s: add it to the lists above, saying which arguments are keys", command)
                .contains(name);
        return args.subList(0, 1);
    }

    private static boolean isDerivedKey(String key, LockKeys lock) {
        return key.equals(lock.lock())
                || key.equals(lock.fence())
                || key.equals(lock.queue())
                || key.equals(lock.timeouts())
                || key.equals(lock.waiting())
                || key.equals(lock.writers())
                || key.equals(lock.permits())
                || key.equals(lock.waiters())
                || key.startsWith(lock.lock() + ":released:");
    }

    private void runReentrantScripts() throws Exception {
        ReentrantKind kind = ReentrantKind.INSTANCE;
        granted(kind.acquire(scripts, keys, acquireArgs(A, 0, "g1", 0)).get(5, TimeUnit.SECONDS));
        granted(kind.acquire(scripts, keys, acquireArgs(A, 0, "g1", 0)).get(5, TimeUnit.SECONDS)); // sent twice
        granted(kind.acquire(scripts, keys, acquireArgs(A, 1, "g1", 0)).get(5, TimeUnit.SECONDS)); // re-entry
        assertThat(kind.acquire(scripts, keys, acquireArgs(B, 0, "g2", 0))
                        .get(5, TimeUnit.SECONDS)
                        .get(0))
                .isEqualTo(0L);
        assertThat(kind.renew(scripts, keys, A, "g1", 30_000).get(5, TimeUnit.SECONDS))
                .isOne();
        long token = granted(
                kind.acquire(scripts, keys, acquireArgs(A, 0, "g3", 0)).get(5, TimeUnit.SECONDS)); // stale g1 replaced
        assertThat(raiseFence(A, token + 1_000)).isOne();
        assertThat(ReentrantKind.refill(scripts, keys, A, "g3", 17, FENCE_TTL_MS)
                        .get(5, TimeUnit.SECONDS)
                        .get(0))
                .as("the next token block")
                .isNotEqualTo(0L);
        granted(kind.acquire(scripts, keys, acquireArgs(A, 1, "g3", 0)).get(5, TimeUnit.SECONDS));
        assertThat(kind.release(scripts, keys, releaseArgs(A, "g3", 2)).get(5, TimeUnit.SECONDS))
                .isZero();
        assertThat(kind.release(scripts, keys, releaseArgs(A, "g3", 1)).get(5, TimeUnit.SECONDS))
                .isOne();
        assertThat(kind.release(scripts, keys, releaseArgs(A, "g3", 1)).get(5, TimeUnit.SECONDS))
                .isOne(); // sent twice
        // another client waits, the release reserves the lock for it, it takes it; a waiter leaves; a
        // reservation is handed back by the waiter it was for
        granted(kind.acquire(scripts, keys, acquireArgs(B, 0, "g4", 0)).get(5, TimeUnit.SECONDS));
        assertThat(kind.acquire(scripts, keys, acquireArgs(C, 0, "g5", 60_000))
                        .get(5, TimeUnit.SECONDS)
                        .get(0))
                .isEqualTo(0L);
        assertThat(kind.release(scripts, keys, releaseArgs(B, "g4", 1)).get(5, TimeUnit.SECONDS))
                .isOne();
        granted(kind.acquire(scripts, keys, acquireArgs(C, 0, "g5", 60_000)).get(5, TimeUnit.SECONDS));
        assertThat(kind.acquire(scripts, keys, acquireArgs(D, 0, "g6", 60_000))
                        .get(5, TimeUnit.SECONDS)
                        .get(0))
                .isEqualTo(0L);
        assertThat(kind.release(scripts, keys, releaseArgs(C, "g5", 1)).get(5, TimeUnit.SECONDS))
                .isOne();
        assertThat(kind.gaveUp(scripts, keys, leaveArgs(D, "g6")).get(5, TimeUnit.SECONDS))
                .isEqualTo(2L);
        granted(kind.acquire(scripts, keys, acquireArgs(B, 0, "g7", 0)).get(5, TimeUnit.SECONDS));
        assertThat(forceRelease("m")).isOne();
        assertThat(forceRelease("m")).isZero();
    }

    private void runSemaphoreScripts(LockKeys sem) throws Exception {
        SemaphoreKind kind = SemaphoreKind.of(2, 1, true);
        granted(kind.acquire(scripts, sem, acquireArgs(A, 0, "s1", 0)).get(5, TimeUnit.SECONDS));
        granted(kind.acquire(scripts, sem, acquireArgs(A, 0, "s1", 0)).get(5, TimeUnit.SECONDS)); // sent twice
        granted(kind.acquire(scripts, sem, acquireArgs(B, 0, "s2", 0)).get(5, TimeUnit.SECONDS));
        assertThat(kind.acquire(scripts, sem, acquireArgs(C, 0, "s3", 60_000))
                        .get(5, TimeUnit.SECONDS)
                        .get(0))
                .as("both permits held: C waits in line")
                .isEqualTo(0L);
        assertThat(kind.gaveUp(scripts, sem, leaveArgs(C, "s3")).get(5, TimeUnit.SECONDS))
                .isEqualTo(1L);
        assertThat(kind.renew(scripts, sem, A, "s1", 30_000).get(5, TimeUnit.SECONDS))
                .isOne();
        assertThat(SemaphoreKind.used(scripts, sem).get(5, TimeUnit.SECONDS)).isEqualTo(2L);
        assertThat(kind.release(scripts, sem, releaseArgs(A, "s1", 1)).get(5, TimeUnit.SECONDS))
                .isOne();
        assertThat(kind.release(scripts, sem, releaseArgs(A, "s1", 1)).get(5, TimeUnit.SECONDS))
                .isOne(); // sent twice
        assertThat(kind.release(scripts, sem, releaseArgs(B, "s2", 1)).get(5, TimeUnit.SECONDS))
                .isOne();
    }

    private void runFairScripts(LockKeys fair) throws Exception {
        FairKind kind = FairKind.INSTANCE;
        granted(kind.acquire(scripts, fair, acquireArgs(A, 0, "f1", 60_000)).get(5, TimeUnit.SECONDS));
        assertThat(kind.acquire(scripts, fair, acquireArgs(B, 0, "f2", 60_000))
                        .get(5, TimeUnit.SECONDS)
                        .get(0))
                .isEqualTo(0L);
        assertThat(kind.acquire(scripts, fair, acquireArgs(C, 0, "f3", 60_000))
                        .get(5, TimeUnit.SECONDS)
                        .get(0))
                .isEqualTo(0L);
        assertThat(kind.gaveUp(scripts, fair, leaveArgs(C, "f3")).get(5, TimeUnit.SECONDS))
                .isEqualTo(1L);
        assertThat(kind.release(scripts, fair, releaseArgs(A, "f1", 1)).get(5, TimeUnit.SECONDS))
                .isOne(); // granted to B
        granted(kind.acquire(scripts, fair, acquireArgs(B, 0, "f2", 60_000)).get(5, TimeUnit.SECONDS));
        granted(kind.acquire(scripts, fair, acquireArgs(B, 0, "f4", 60_000))
                .get(5, TimeUnit.SECONDS)); // stale f2 replaced
        assertThat(kind.renew(scripts, fair, B, "f4", 30_000).get(5, TimeUnit.SECONDS))
                .isOne();
        assertThat(kind.acquire(scripts, fair, acquireArgs(C, 0, "f5", 60_000))
                        .get(5, TimeUnit.SECONDS)
                        .get(0))
                .isEqualTo(0L);
        assertThat(kind.release(scripts, fair, releaseArgs(B, "f4", 1)).get(5, TimeUnit.SECONDS))
                .isOne(); // granted to C
        assertThat(kind.gaveUp(scripts, fair, leaveArgs(C, "f5")).get(5, TimeUnit.SECONDS))
                .as("C gives the grant back as it leaves")
                .isEqualTo(1L);
        assertThat(kind.release(scripts, fair, releaseArgs(B, "f4", 1)).get(5, TimeUnit.SECONDS))
                .isOne();
    }

    private void runReadWriteScripts(LockKeys rw) throws Exception {
        ReadWriteKind read = ReadWriteKind.READ;
        ReadWriteKind write = ReadWriteKind.WRITE;
        granted(write.acquire(scripts, rw, acquireArgs(A, 0, "w1", 0)).get(5, TimeUnit.SECONDS));
        granted(write.acquire(scripts, rw, acquireArgs(A, 0, "w1", 0)).get(5, TimeUnit.SECONDS)); // sent twice
        granted(read.acquire(scripts, rw, acquireArgs(A, 0, "r1", 0)).get(5, TimeUnit.SECONDS)); // downgrade
        assertThat(read.acquire(scripts, rw, acquireArgs(B, 0, "r2", 0))
                        .get(5, TimeUnit.SECONDS)
                        .get(0))
                .isEqualTo(0L);
        assertThat(write.acquire(scripts, rw, acquireArgs(C, 0, "w3", 10_000))
                        .get(5, TimeUnit.SECONDS)
                        .get(0))
                .as("a writer that waits, marked as such")
                .isEqualTo(0L);
        assertThat(write.gaveUp(scripts, rw, new ScriptArgs.Leave(C, "w3", "w3", "wake", FENCE_TTL_MS, NOTE_TTL_MS))
                        .get(5, TimeUnit.SECONDS))
                .as("and gives up")
                .isEqualTo(1L);
        assertThat(write.renew(scripts, rw, A, "w1", 30_000).get(5, TimeUnit.SECONDS))
                .isOne();
        assertThat(read.renew(scripts, rw, A, "r1", 30_000).get(5, TimeUnit.SECONDS))
                .isOne();
        assertThat(write.release(scripts, rw, releaseArgs(A, "w1", 1)).get(5, TimeUnit.SECONDS))
                .isOne();
        assertThat(write.release(scripts, rw, releaseArgs(A, "w1", 1)).get(5, TimeUnit.SECONDS))
                .isOne();
        granted(read.acquire(scripts, rw, new ScriptArgs.Acquire(B, 50, FENCE_TTL_MS, 0, "r2", 0, 1))
                .get(5, TimeUnit.SECONDS));
        Awaitility.await()
                .atMost(Duration.ofSeconds(5))
                .until(() -> read.renew(scripts, rw, B, "r2", 50).get(5, TimeUnit.SECONDS)
                        == 0L); // B's lease ran out: dropped
        assertThat(read.release(scripts, rw, releaseArgs(A, "r1", 1)).get(5, TimeUnit.SECONDS))
                .isOne();
        assertThat(read.release(scripts, rw, releaseArgs(A, "r1", 1)).get(5, TimeUnit.SECONDS))
                .isOne();
    }

    private static ScriptArgs.Acquire acquireArgs(String owner, int held, String grant, long waitMs) {
        return new ScriptArgs.Acquire(owner, 30_000, FENCE_TTL_MS, held, grant, waitMs, 17);
    }

    private static ScriptArgs.Release releaseArgs(String owner, String grant, int held) {
        return new ScriptArgs.Release(
                owner,
                grant,
                held,
                "wake",
                NOTE_TTL_MS,
                0,
                false,
                50,
                2000,
                FENCE_TTL_MS,
                "",
                0,
                "",
                1,
                (o, token, g, lease, line, earlier) -> {});
    }

    private static ScriptArgs.Leave leaveArgs(String owner, String grant) {
        return new ScriptArgs.Leave(owner, grant, grant, "m", FENCE_TTL_MS, NOTE_TTL_MS);
    }

    private static long granted(List<Object> reply) {
        assertThat(reply.get(0)).as("granted: %s", reply).isEqualTo(1L);
        return (Long) reply.get(1);
    }

    private Set<String> scanAll() {
        Set<String> all = new HashSet<>();
        KeyScanCursor<String> cursor = sync.scan();
        while (true) {
            all.addAll(cursor.getKeys());
            if (cursor.isFinished()) {
                return all;
            }
            cursor = sync.scan(ScanCursor.of(cursor.getCursor()));
        }
    }
}
