package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.Exclusion;
import dev.distlock.core.testing.GiveUpStorm;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RecordingListener;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.SlowTest;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The at-least-once client under contention: two clients, each through its own relay, take one lock
 * with threads and async handles that give up at every moment ({@link GiveUpStorm}), while the relays
 * keep replies back for a few ms now and then and drop connections with replies still kept back, or
 * close them after letting part of those replies through (a reply cut inside). Lettuce then writes those
 * commands again on the new connection, so acquires, re-entries, releases, local
 * hand-offs, refills and fair grants run twice or have their replies lost or cut, in every order the callers
 * make. Still one holder at a time (of a read/write lock: one writer, or readers together), every
 * holder a larger fencing token than the one before (a reader: than the writer before), no hold
 * reported lost (the 30 s watchdog lease outlasts every fault), and nothing left held when the callers
 * stop.
 */
@SlowTest
class ContentionUnderConnectionFaultsTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    enum Kind {
        REENTRANT {
            @Override
            GiveUpStorm storm(List<LockClient> clients, String name) {
                return new GiveUpStorm(
                        clients.stream().map(c -> c.getLock(name)).toList(), true);
            }
        },
        FAIR {
            @Override
            GiveUpStorm storm(List<LockClient> clients, String name) {
                return new GiveUpStorm(
                        clients.stream().map(c -> c.getFairLock(name)).toList(), false);
            }
        },
        /** Readers share, writers exclude (Exclusion.passShared), reads re-entered. */
        READ_WRITE {
            @Override
            GiveUpStorm storm(List<LockClient> clients, String name) {
                return GiveUpStorm.readWrite(
                        clients.stream().map(c -> c.getReadWriteLock(name)).toList());
            }
        };

        abstract GiveUpStorm storm(List<LockClient> clients, String name);
    }

    private final RecordingListener events = new RecordingListener();
    private FaultRelay relay;
    private FaultRelay otherRelay;
    private LockClient client;
    private LockClient otherClient;
    private RedisProbe probe;
    private String name;

    @BeforeEach
    void setUp() {
        relay = FaultRelay.to(redis.server());
        otherRelay = FaultRelay.to(redis.server());
        LockClientOptions options = LockClientOptions.builder().listener(events).build();
        client = LockClient.create(RedisURI.create(relay.uri()), options);
        otherClient = LockClient.create(RedisURI.create(otherRelay.uri()), options);
        probe = RedisProbe.connect(redis.server());
        name = Names.fresh("faults");
    }

    @AfterEach
    void tearDown() {
        client.close();
        otherClient.close();
        relay.close();
        otherRelay.close();
        probe.close();
    }

    /**
     * Storms per kind: 1 in the build; more for a long hunt, e.g. {@code -Ddistlock.faults.runs=60
     * -Ddistlock.faults.kinds=FAIR} (see README, "Checking it yourself").
     */
    private static final int RUNS = Integer.getInteger("distlock.faults.runs", 1);

    private static final String KINDS = System.getProperty("distlock.faults.kinds", "");

    @ParameterizedTest
    @EnumSource(Kind.class)
    void oneHolderAtATimeWithGrowingTokensWhileConnectionsDropWithRepliesInFlight(Kind kind) throws Exception {
        Assumptions.assumeTrue(
                KINDS.isEmpty() || List.of(KINDS.split(",")).contains(kind.name()),
                () -> kind + " not among -Ddistlock.faults.kinds=" + KINDS);
        for (int run = 1; run <= RUNS; run++) {
            if (run > 1) {
                name = Names.fresh("faults");
            }
            long freeMs = storm(kind);
            if (RUNS > 1) {
                System.out.printf("%s storm %d of %d: lock free %d ms after the stop%n", kind, run, RUNS, freeMs);
            }
        }
    }

    /** One 4 s storm; returns how long after its stop the lock was free. */
    private long storm(Kind kind) throws Exception {
        GiveUpStorm storm = kind.storm(List.of(client, otherClient), name);
        int[] dropsWithRepliesKeptBack = {0};
        int[] dropsInsideReplies = {0};
        int[] faults = {0};
        Exclusion exclusion = storm.run(Duration.ofSeconds(4), until -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (System.nanoTime() < until) {
                TimeUnit.MILLISECONDS.sleep(random.nextInt(50, 250));
                FaultRelay faulty = random.nextBoolean() ? relay : otherRelay;
                faulty.holdReplies();
                TimeUnit.MILLISECONDS.sleep(random.nextInt(1, 15));
                long pending = faulty.pendingReplyBytes();
                // the kinds of fault in turn, so that a 4 s run has several of each (about 25 faults in all)
                switch (faults[0]++ % 4) {
                    case 0 -> faulty.releaseReplies(); // late replies, nothing lost
                    case 1 -> {
                        // the first bytes kept back get through, most likely ending inside a reply, then FIN:
                        // Lettuce sends that command again and reads its new reply after the part it had
                        if (pending > 1) {
                            faulty.releaseReplyBytes((int) random.nextLong(1, Math.min(pending, 4_000)));
                            dropsInsideReplies[0]++;
                        }
                        faulty.drop(FaultRelay.Drop.FIN);
                    }
                    default -> {
                        if (pending > 0) {
                            dropsWithRepliesKeptBack[0]++;
                        }
                        faulty.drop(random.nextBoolean() ? FaultRelay.Drop.RST : FaultRelay.Drop.FIN);
                    }
                }
            }
            relay.heal();
            otherRelay.heal();
        });

        assertThat(dropsWithRepliesKeptBack[0])
                .as("connections dropped with replies kept back (commands Lettuce wrote again)")
                .isPositive();
        assertThat(dropsInsideReplies[0])
                .as("connections closed after part of the replies kept back")
                .isPositive();
        assertThat(exclusion.overlaps()).as(exclusion::report).isZero();
        assertThat(exclusion.tokenBreaks())
                .as(() -> "every holder a larger fencing token than the one before" + exclusion.report())
                .isZero();
        assertThat(exclusion.entries()).as("the lock was taken at all").isPositive();
        if (kind == Kind.READ_WRITE) {
            assertThat(exclusion.sharedAtOnce())
                    .as("readers held the lock together")
                    .isPositive();
            assertThat(exclusion.entries() - exclusion.sharedEntries())
                    .as("the lock was written")
                    .isPositive();
        }
        assertThat(events.leaseLosses).as("holds reported lost").isEmpty();
        LockKeys keys = LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name);
        // A hold or grant stranded by a lost reply would keep the lock for the 30 s watchdog lease; a fair
        // waiter's place that outlived its leave (once seen here, from a retry sent as its caller cancelled:
        // LateRetryTest) would be granted the lock until the place's deadline, up to 4 s after its last try.
        // Freed within 0.12 s in 180 runs of the fair storm (27 Nov 2026): 2 s is generous.
        long stopped = System.nanoTime();
        await("the lock free once the callers stopped")
                .atMost(Duration.ofSeconds(2))
                .until(() -> probe.sync().exists(keys.lock()) == 0);
        long freeMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stopped);
        // A read/write writer's mark that outlived its give-up (a try sent again after its leave) holds new
        // readers back until it runs out, 2 s at most.
        await("no fair queue or waiting writer's mark left")
                .atMost(Duration.ofSeconds(10))
                .until(() -> probe.sync().exists(keys.queue(), keys.timeouts(), keys.waiting(), keys.writers()) == 0);
        assertThat(client.activeHolds() + otherClient.activeHolds()).isZero();
        return freeMs;
    }
}
