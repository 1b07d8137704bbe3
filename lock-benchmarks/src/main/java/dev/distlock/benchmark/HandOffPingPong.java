package dev.distlock.benchmark;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.RedisLock;
import io.lettuce.core.RedisURI;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

/**
 * One side of {@link HandOffBenchmark}'s ping-pong: two JVMs take turns holding one lock, each releasing
 * only once the other waits, so every grant after the first is a hand-off across processes. The releaser
 * writes the wall clock (µs) into a file both JVMs map just before it calls unlock; the other side reads it
 * when its lock() returns: hand-off time = release call start to the waiter's acquire returning. The wall
 * clock (CLOCK_REALTIME) is the same clock in both processes of one machine; nanoTime is only promised
 * within one JVM.
 *
 * <p>Before it releases, the holder waits for the other's "waiting" flag and then {@link #SETTLE_NANOS}
 * more, so the other's request has reached Redis and it sleeps (its first attempt after the flag is one
 * round trip, about 0.1 ms here): what is timed is a hand-off to a sleeping waiter, not a race. In that
 * wait it times its reference call (see {@link Measured}).
 */
final class HandOffPingPong {

    static final String FLAG = "--handoff-side";

    /** From the other's "waiting" flag to the release: long enough for its attempt to land and it to sleep. */
    static final long SETTLE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    /** Offsets in the shared file: the release stamp, each side's "waiting" flag, the stop flag. */
    private static final int STAMP = 0;

    private static final int WAITING = 8;
    private static final int STOP = 16;

    private final MappedByteBuffer shared;
    private final int side;

    HandOffPingPong(Path file, int side) throws IOException {
        try (FileChannel channel =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            this.shared = channel.map(FileChannel.MapMode.READ_WRITE, 0, 64);
        }
        this.side = side;
    }

    static long wallMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    void stop() {
        shared.putInt(STOP, 1);
    }

    private boolean stopped() {
        return shared.getInt(STOP) != 0;
    }

    /**
     * What one side measured, in µs: the hand-offs it received, and its reference calls: before each release,
     * one uncontended lock() of a free lock ({@code probe}), timed on its own, after the same idle wait as the
     * hand-off, so that both start from the same state of the machine (a call in a tight loop runs on warm
     * threads and cores; a hand-off wakes a sleeping waiter after an idle spell).
     */
    record Measured(List<Long> received, List<Long> roundTrips) {
        String encode() {
            return join(received) + ";" + join(roundTrips);
        }

        static Measured decode(String text) {
            String[] parts = text.split(";", -1);
            return new Measured(split(parts[0]), split(parts[1]));
        }

        private static String join(List<Long> values) {
            return values.stream().map(String::valueOf).collect(Collectors.joining(","));
        }

        private static List<Long> split(String text) {
            return text.isEmpty()
                    ? List.of()
                    : java.util.Arrays.stream(text.split(","))
                            .map(Long::valueOf)
                            .toList();
        }
    }

    /** Plays until stopped; returns what this side measured. */
    Measured play(HandOffTurn turn, RedisLock probe) {
        List<Long> received = new ArrayList<>();
        List<Long> roundTrips = new ArrayList<>();
        int mine = WAITING + 4 * side;
        int theirs = WAITING + 4 * (1 - side);
        boolean first = true;
        while (true) {
            shared.putInt(mine, 1);
            turn.take();
            long at = wallMicros();
            shared.putInt(mine, 0);
            long stamp = shared.getLong(STAMP);
            if (!first && stamp != 0) {
                received.add(at - stamp);
            }
            first = false;
            while (shared.getInt(theirs) == 0 && !stopped()) {
                Thread.onSpinWait();
            }
            if (stopped()) {
                turn.give();
                return new Measured(received, roundTrips);
            }
            LockSupport.parkNanos(SETTLE_NANOS);
            long start = System.nanoTime();
            probe.lock();
            roundTrips.add(TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start));
            probe.unlock();
            LockSupport.parkNanos(SETTLE_NANOS); // the hand-off after the same idle spell
            shared.putLong(STAMP, wallMicros());
            turn.give();
        }
    }

    /** A client for {@code uri} whose waiters take grants from wake-up messages, or not (the "before"). */
    static LockClient client(String uri, boolean grantsInMessages) {
        return LockClient.create(
                RedisURI.create(uri),
                LockClientOptions.builder().grantsInMessages(grantsInMessages).build());
    }

    /**
     * The child's side: args are the Redis URI, lock kind (or {@link HandOffTurn#FLOOR}), lock name, shared
     * file, and whether grants ride in wake-up messages ({@link LockClientOptions.Builder#grantsInMessages}).
     * Prints "ready", plays from the parent's "go" until the stop flag, then prints "received" and its
     * hand-offs in µs.
     */
    static void childMain(String[] args) throws Exception {
        PrintStream out = ChildJvm.protocolChannel();
        HandOffPingPong side = new HandOffPingPong(Path.of(args[3]), 1);
        try (LockClient client = client(args[0], Boolean.parseBoolean(args[4]))) {
            RedisLock probe = client.getLock(args[2] + "-probe-child");
            probe.lock(); // loads the scripts and warms the connection
            probe.unlock();
            out.println("ready");
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            if (!"go".equals(in.readLine())) {
                return;
            }
            try (HandOffTurn turn = HandOffTurn.of(client, args[0], args[1], args[2], 1)) {
                out.println("received " + side.play(turn, probe).encode());
            }
        }
    }
}
