package dev.distlock.core.testing;

import dev.distlock.core.LeaderCandidate;
import dev.distlock.core.LeaderListener;
import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.internal.redis.ClientShutdown;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Child process of {@code LeaderElectionAcrossProcessesTest}: one candidate for a role, whose leader writes
 * to a {@link HighestTermStore} stamped with its term every 20 ms, as long as {@link LeaderCandidate#term()}
 * says it leads.
 *
 * <p>Arguments: redis URI, role, watchdog lease in ms, store key, this worker's id. Prints {@code READY},
 * then a line for every call of its listener ({@code GRANTED <term> <epoch ms>}, {@code REVOKED <term>
 * <reason>}), {@code REFUSED <term>} when the store refused a write, and {@code RESUMED <ms> leader=<bool>}
 * when the write loop finds that its last round took more than a second (SIGSTOP), before it does anything
 * else in the next round.
 * Reads commands on stdin: {@code YIELD} (prints {@code YIELDED <bool>}), and {@code PROBE}, which writes
 * with the last term it was granted whether it leads or not and prints
 * {@code PROBE leader=<bool> term=<t> write=accepted|refused}.
 */
public final class LeaderWorker {

    private LeaderWorker() {}

    public static void main(String[] args) throws Exception {
        String role = args[1];
        HighestTermStore store = new HighestTermStore(args[3]);
        String id = args[4];
        AtomicLong lastTerm = new AtomicLong();
        LockClientOptions options = LockClientOptions.builder()
                .watchdogLease(Duration.ofMillis(Long.parseLong(args[2])))
                .build();
        RedisClient redis = RedisClient.create(args[0]);
        try (LockClient client = LockClient.create(RedisURI.create(args[0]), options);
                StatefulRedisConnection<String, String> connection = redis.connect()) {
            RedisCommands<String, String> commands = connection.sync();
            LeaderCandidate candidate = client.leader(role, new LeaderListener() {
                @Override
                public void granted(String role, long term) {
                    lastTerm.set(term);
                    say("GRANTED " + term + " " + System.currentTimeMillis());
                }

                @Override
                public void revoked(String role, long term, String reason) {
                    say("REVOKED " + term + " " + reason);
                }
            });
            candidate.start();
            Thread loop = new Thread(() -> writeWhileLeading(candidate, store, commands, id), "write-loop");
            loop.setDaemon(true);
            loop.start();
            say("READY");
            BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String command = stdin.readLine(); command != null; command = stdin.readLine()) {
                if (command.equals("YIELD")) {
                    say("YIELDED " + candidate.yieldLeadership());
                } else if (command.equals("PROBE")) {
                    boolean leader = candidate.isLeader();
                    long term = lastTerm.get();
                    boolean accepted = store.write(commands, term, id);
                    say("PROBE leader=" + leader + " term=" + term + " write=" + (accepted ? "accepted" : "refused"));
                }
            }
        } finally {
            ClientShutdown.shutdown(redis);
        }
    }

    private static void writeWhileLeading(
            LeaderCandidate candidate, HighestTermStore store, RedisCommands<String, String> commands, String id) {
        long last = System.nanoTime();
        while (true) {
            long now = System.nanoTime();
            if (now - last > TimeUnit.SECONDS.toNanos(1)) {
                say("RESUMED " + TimeUnit.NANOSECONDS.toMillis(now - last) + " leader=" + candidate.isLeader());
            }
            // From the top of one round to the next: a stop that falls inside the write below counts too (that
            // write, sent with the term read before the stop, is the store's to refuse).
            last = now;
            OptionalLong term = candidate.term();
            if (term.isPresent() && !store.write(commands, term.getAsLong(), id)) {
                say("REFUSED " + term.getAsLong());
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static void say(String line) {
        synchronized (System.out) {
            System.out.println(line);
            System.out.flush();
        }
    }
}
