package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.FairWorker;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RedisMonitor;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fair lock across JVMs: child processes ({@link FairWorker}) queued one after the other get
 * the lock in that order, and a child killed while queued holds the others up only until its
 * deadline in Redis runs out.
 */
@SlowTest
class FairLockAcrossProcessesTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    /** Children re-check at least this often and are dropped this long after a missed re-check. */
    private static final long RECHECK_MS = 500;

    private static final long MARGIN_MS = 1_500;

    @TempDir
    Path dir;

    private final List<Process> children = new ArrayList<>();
    private final List<Path> outputs = new ArrayList<>();
    private LockClient client;
    private RedisProbe probe;
    private String name;
    private LockKeys keys;
    private String orderKey;

    @BeforeEach
    void setUp() {
        client = LockClient.create(RedisURI.create(redis.server().uri()));
        probe = RedisProbe.connect(redis.server());
        name = Names.fresh("fair-processes");
        keys = LockKeys.of("lock:", name);
        orderKey = Names.fresh("order");
    }

    @AfterEach
    void tearDown() {
        children.forEach(Process::destroyForcibly);
        client.close();
        probe.close();
    }

    @Test
    void processesGetTheLockInTheOrderTheyQueued() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        startChildren(5);
        queueChildrenInOrder();

        held.unlock();

        awaitChildrenDone(children);
        assertThat(probe.sync().lrange(orderKey, 0, -1)).containsExactly("0", "1", "2", "3", "4");
        assertThat(probe.sync().exists(keys.queue(), keys.timeouts()))
                .as("queue and timeouts keys")
                .isZero();
    }

    @Test
    void waiterKilledWhileQueuedDelaysTheNextOnlyUntilItsDeadline() throws Exception {
        RedisLock held = client.getFairLock(name);
        held.lock();
        startChildren(3);
        List<String> owners = queueChildrenInOrder();
        Process killed = children.get(0);

        killed.destroyForcibly();
        assertThat(killed.waitFor(10, TimeUnit.SECONDS)).isTrue();
        long released = System.nanoTime();
        held.unlock(); // wakes the dead head, which never answers

        awaitChildrenDone(children.subList(1, 3));
        Duration delay = Duration.ofNanos(System.nanoTime() - released);
        assertThat(probe.sync().lrange(orderKey, 0, -1)).containsExactly("1", "2");
        // the dead head's deadline is at most RECHECK + MARGIN after its last attempt, the next waiter looks
        // again within RECHECK: about 2.5 s, asserted with a generous allowance for slow machines
        assertThat(delay)
                .isLessThan(Duration.ofMillis(2 * RECHECK_MS + MARGIN_MS).plusSeconds(8));
        assertThat(probe.sync().lrange(keys.queue(), 0, -1)).doesNotContain(owners.get(0));
        assertThat(probe.sync().exists(keys.queue(), keys.timeouts()))
                .as("queue and timeouts keys")
                .isZero();
    }

    /**
     * A child re-checking only every 60 s waits for the lock; the release in this JVM grants it and publishes
     * the grant, and the child holds the lock from that message: it runs no acquire script between the
     * release and its hold (which it records with an RPUSH, the end of what MONITOR is read for).
     */
    @Test
    void aWaiterInAnotherProcessHoldsTheLockFromTheGrantMessageWithoutAnAcquireScript() throws Exception {
        startChildren(1, 60_000, 60_000);
        RedisLock held = client.getFairLock(name);
        held.lock(); // the fair scripts loaded: MONITOR lines stay short
        held.unlock();
        held.lock();
        long scripts = probe.scriptRuns();
        queueChildrenInOrder();
        // its attempts before and after subscribing: it sleeps, and only its grant message can wake it
        await().atMost(Duration.ofSeconds(30)).until(() -> probe.scriptRuns() - scripts >= 2);
        long acquires;
        try (RedisMonitor monitor = RedisMonitor.start(redis.server())) {
            held.unlock();

            acquires = monitor.commandsUntil(orderKey).stream()
                    .filter(c -> !c.fromScript() && c.words().contains(LockScript.FAIR_ACQUIRE.sha1()))
                    .count();
        }
        awaitChildrenDone(children);
        assertThat(acquires)
                .as("acquire scripts from the release until the child held the lock")
                .isZero();
        assertThat(probe.sync().lrange(orderKey, 0, -1)).containsExactly("0");
        assertThat(probe.sync().exists(keys.queue(), keys.timeouts())).isZero();
    }

    private void startChildren(int count) throws IOException {
        startChildren(count, RECHECK_MS, MARGIN_MS);
    }

    private void startChildren(int count, long recheckMs, long marginMs) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // surefire puts the test classpath in a manifest-only jar; the real one is in this property
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        for (int i = 0; i < count; i++) {
            Path output = dir.resolve("child-" + i + ".out");
            outputs.add(output);
            children.add(new ProcessBuilder(
                            java,
                            "-Xmx128m",
                            "-XX:TieredStopAtLevel=1",
                            "-cp",
                            classpath,
                            FairWorker.class.getName(),
                            redis.server().uri(),
                            name,
                            orderKey,
                            Integer.toString(i),
                            Long.toString(recheckMs),
                            Long.toString(marginMs))
                    .redirectErrorStream(true)
                    .redirectOutput(output.toFile())
                    .start());
        }
        await().atMost(Duration.ofSeconds(30)).until(this::allReady);
    }

    /** Lets the children ask for the lock one at a time, each once the previous one is queued in Redis; returns their owner ids. */
    private List<String> queueChildrenInOrder() throws IOException {
        List<String> owners = new ArrayList<>();
        for (int i = 0; i < children.size(); i++) {
            try (OutputStream stdin = children.get(i).getOutputStream()) {
                stdin.write("GO\n".getBytes(StandardCharsets.UTF_8));
            }
            int queued = i + 1;
            await().atMost(Duration.ofSeconds(10)).until(() -> probe.sync().llen(keys.queue()) == queued);
            owners.add(probe.sync().lindex(keys.queue(), i));
        }
        return owners;
    }

    private void awaitChildrenDone(List<Process> which) throws Exception {
        for (Process child : which) {
            int i = children.indexOf(child);
            assertThat(child.waitFor(60, TimeUnit.SECONDS))
                    .as("child %d ended", i)
                    .isTrue();
            String output = Files.readString(outputs.get(i));
            assertThat(child.exitValue())
                    .as("child %d exit code; output:%n%s", i, output)
                    .isZero();
        }
    }

    private boolean allReady() {
        for (int i = 0; i < children.size(); i++) {
            String output = read(outputs.get(i));
            if (!children.get(i).isAlive()) {
                throw new AssertionError("child " + i + " exited before it was ready:\n" + output);
            }
            if (!output.lines().anyMatch("READY"::equals)) {
                return false;
            }
        }
        return true;
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
