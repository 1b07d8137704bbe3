package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.LockListener.RenewalOutcome;
import dev.distlock.core.internal.redis.script.LockScript;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.core.testing.RedisMonitor;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Watchdog renewals travel on a connection of their own, so that a renewal round never queues in
 * front of the client's lock calls (Redis serves its connections in turn).
 */
@BehaviourTest
class RenewalConnectionTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void renewalsAreSentOnAnotherConnectionThanLockCalls() throws Exception {
        String name = Names.fresh("renewal-connection");
        String end = "end-of-" + name;
        List<RedisMonitor.Command> commands = new ArrayList<>();
        RecordingListener events = new RecordingListener();
        try (LockClient client = LockClient.create(
                RedisURI.create(redis.server().uri()),
                LockClientOptions.builder()
                        // 2 s: a renewal (every lease/3) must land within one lease, which a loaded machine
                        // missed at 300 ms and can at 600 ms, losing the hold the test unlocks
                        .watchdogLease(Duration.ofSeconds(2))
                        .listener(events)
                        .build())) {
            RedisLock lock = client.getLock(name);
            // once before watching, so that every script is loaded and later runs are plain EVALSHA
            lock.lock();
            await().atMost(Waits.GRANTED)
                    .until(() -> !events.renewals(name, RenewalOutcome.RENEWED).isEmpty());
            lock.unlock();
            try (RedisMonitor monitor = RedisMonitor.start(redis.server())) {
                lock.lock();
                commands.addAll(monitor.commandsUntil(LockScript.RENEW.sha1())); // renewed at least once
                lock.unlock();
                redis.server().command("ECHO", end);
                commands.addAll(monitor.commandsUntil(end));
            }
        }
        Set<String> lockCalls = sources(commands, LockScript.ACQUIRE.sha1(), LockScript.RELEASE.sha1());
        Set<String> renewals = sources(commands, LockScript.RENEW.sha1());
        // lock and unlock on one connection, every renewal on another
        assertThat(lockCalls).hasSize(1);
        assertThat(renewals).isNotEmpty().doesNotContainAnyElementsOf(lockCalls);
    }

    private static Set<String> sources(List<RedisMonitor.Command> commands, String... shas) {
        Set<String> wanted = Set.of(shas);
        return commands.stream()
                .filter(c -> !c.fromScript()
                        && c.words().size() > 1
                        && c.words().get(0).equalsIgnoreCase("EVALSHA"))
                .filter(c -> wanted.contains(c.words().get(1)))
                .map(RedisMonitor.Command::source)
                .collect(Collectors.toSet());
    }
}
