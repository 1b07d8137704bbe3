package dev.distlock.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The check run inside every critical section, in memory that every holder shares: a counter of
 * who is inside (a violation when anyone else was) and the last release (its {@code System.nanoTime}
 * and holder), from which the next holder measures its hand-off latency.
 *
 * <p>In one JVM the memory is a direct buffer; across JVMs it is a memory-mapped file that each
 * child maps, so the check costs no Redis round trip and adds nothing to the libraries' command
 * counts. Atomic updates of a mapped page are atomic across processes (the CPU's locked
 * instructions work on physical memory), and {@code System.nanoTime} is {@code CLOCK_MONOTONIC}
 * on Linux, one clock for all processes of the machine, so a release stamped in one JVM and a grant
 * stamped in another can be subtracted.
 */
final class Occupancy {

    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    /** One cache line per key, so neighbouring keys do not slow each other down. */
    private static final int SLOT_BYTES = 64;

    private static final int INSIDE = 0;
    private static final int RELEASED_AT = 8;
    private static final int RELEASED_BY = 16;

    private final ByteBuffer memory;
    private final int capacity;
    private final ConcurrentHashMap<String, Slot> slots = new ConcurrentHashMap<>();
    private final AtomicInteger used = new AtomicInteger();

    private Occupancy(ByteBuffer memory) {
        this.memory = memory;
        this.capacity = memory.capacity() / SLOT_BYTES;
    }

    /** For holders in this JVM only, room for {@code keys} keys. */
    static Occupancy local(int keys) {
        return new Occupancy(ByteBuffer.allocateDirect(Math.max(1, keys) * SLOT_BYTES));
    }

    /**
     * For holders in several JVMs: each maps {@code file} (created zeroed by the parent, see
     * {@link #bytesFor}). Keys get slots in the order they are first asked for, so every process must
     * ask for the same keys in the same order (the multi-JVM scenario has one key).
     */
    static Occupancy mapped(Path file) {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return new Occupancy(channel.map(FileChannel.MapMode.READ_WRITE, 0, channel.size()));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot map the shared occupancy file " + file, e);
        }
    }

    /** Size of the file {@link #mapped} needs for {@code keys} keys. */
    static long bytesFor(int keys) {
        return (long) Math.max(1, keys) * SLOT_BYTES;
    }

    /** The slot of {@code key}; resolved once per worker so the loop does no map look-up. */
    Slot slot(String key) {
        return slots.computeIfAbsent(key, k -> {
            int i = used.getAndIncrement();
            if (i >= capacity) {
                throw new IllegalStateException(
                        "Occupancy has room for " + capacity + " keys; '" + k + "' is one more");
            }
            return new Slot(i * SLOT_BYTES);
        });
    }

    /** The shared state of one key. */
    final class Slot {
        private final int base;

        private Slot(int base) {
            this.base = base;
        }

        /**
         * Enters the critical section of a holder granted at {@code grantedAt} after asking at
         * {@code requestedAt}: counts a violation when someone else is inside, and a hand-off when
         * another holder released the lock while this one was already waiting.
         */
        void enter(long holder, long requestedAt, long grantedAt, Tally tally, boolean measured) {
            if ((long) LONGS.getAndAdd(memory, base + INSIDE, 1L) != 0) {
                tally.violations++;
            }
            long by = (long) LONGS.getAcquire(memory, base + RELEASED_BY);
            long at = (long) LONGS.getAcquire(memory, base + RELEASED_AT);
            if (measured && by != 0 && by != holder && at - requestedAt >= 0) {
                tally.handOff(grantedAt - at, Holders.process(by) != Holders.process(holder));
            }
        }

        /** Leaves the critical section: stamps this release, to be called right before unlock. */
        void leave(long holder) {
            LONGS.setRelease(memory, base + RELEASED_AT, System.nanoTime());
            LONGS.setRelease(memory, base + RELEASED_BY, holder);
            LONGS.getAndAdd(memory, base + INSIDE, -1L);
        }
    }

    /** Holder ids unique across the JVMs of a run: the process id above, the worker below. */
    static final class Holders {
        private static final int WORKER_BITS = 20;

        private Holders() {}

        static long of(int worker) {
            return (ProcessHandle.current().pid() << WORKER_BITS) | (worker + 1);
        }

        static long process(long holder) {
            return holder >>> WORKER_BITS;
        }
    }
}
