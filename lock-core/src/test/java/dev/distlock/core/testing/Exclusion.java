package dev.distlock.core.testing;

import dev.distlock.core.RedisLock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * Counts callers inside a critical section at once: any second one is an overlap, unless both entered
 * shared (the read side of a read/write lock, {@link #passShared}). The section lasts a real span
 * ({@link #SPAN_NANOS}, or a round trip between {@link #enter} and {@link #exit}): left empty, two
 * holders at once would almost never be inside at the same instant, and the check could not fail.
 */
public final class Exclusion {

    /** How long {@link #pass} stays inside: about a lock round trip, so an overlap of two holders shows. */
    public static final long SPAN_NANOS = TimeUnit.MICROSECONDS.toNanos(150);

    private final AtomicInteger inside = new AtomicInteger();
    /** Callers inside shared (readers); {@link #inside} counts the exclusive ones. */
    private final AtomicInteger sharing = new AtomicInteger();

    private final AtomicInteger overlaps = new AtomicInteger();
    /** Shared entries that found another shared caller inside: readers did share. */
    private final AtomicInteger sharedAtOnce = new AtomicInteger();

    private final AtomicInteger sharedEntries = new AtomicInteger();
    private final AtomicInteger entries = new AtomicInteger();
    /** Entries made through {@link #pass(String, long)}, for {@link #tokenBreaks} and {@link #report}. */
    private final ConcurrentLinkedQueue<Entry> log = new ConcurrentLinkedQueue<>();

    /** Who entered, shared or not, with which fencing token, when it entered and left (System.nanoTime). */
    private record Entry(String who, boolean shared, long token, long in, long out) {}

    /** Enters, stays {@link #SPAN_NANOS} (parked: fine on a virtual thread, never on an event loop), leaves. */
    public void pass() {
        enter();
        LockSupport.parkNanos(SPAN_NANOS);
        exit();
    }

    /**
     * As {@link #pass()}, also recording who passed with which fencing token: entries are then checked
     * for growing tokens ({@link #tokenBreaks}) and described around any fault ({@link #report}).
     */
    public void pass(String who, long token) {
        long in = System.nanoTime();
        pass();
        log.add(new Entry(who, false, token, in, System.nanoTime()));
    }

    /**
     * As {@link #pass(String, long)} for a shared hold (a reader): it overlaps only a caller inside
     * exclusively, and its token need only be above those of the exclusive entries before it (readers
     * granted together enter in any order).
     */
    public void passShared(String who, long token) {
        long in = System.nanoTime();
        if (sharing.incrementAndGet() > 1) {
            sharedAtOnce.incrementAndGet();
        }
        if (inside.get() != 0) {
            overlaps.incrementAndGet();
        }
        entries.incrementAndGet();
        sharedEntries.incrementAndGet();
        LockSupport.parkNanos(SPAN_NANOS);
        sharing.decrementAndGet();
        log.add(new Entry(who, true, token, in, System.nanoTime()));
    }

    /**
     * Entries (of {@link #pass(String, long)} and {@link #passShared}) whose token is not above every one
     * that entered before them (a shared entry: every exclusive one).
     */
    public int tokenBreaks() {
        return faults(sorted(), false).size();
    }

    /**
     * The recorded entries around the first overlaps or token breaks (who, token, in and out in µs from
     * the first entry): what a failure needs to tell which holders met.
     */
    public String report() {
        List<Entry> sorted = sorted();
        StringBuilder out = new StringBuilder();
        for (int i : faults(sorted, true).stream().limit(5).toList()) {
            out.append("\naround entry ").append(i).append(':');
            for (int j = Math.max(0, i - 4); j < Math.min(sorted.size(), i + 4); j++) {
                Entry e = sorted.get(j);
                long start = sorted.get(0).in();
                out.append(String.format(
                        "%n  %s%s token %d in %d µs out %d µs",
                        e.who(),
                        e.shared() ? " (shared)" : "",
                        e.token(),
                        (e.in() - start) / 1000,
                        (e.out() - start) / 1000));
            }
        }
        return out.length() == 0 ? "no overlap or token break among " + sorted.size() + " entries" : out.toString();
    }

    /**
     * The indexes in {@code sorted} of the entries whose token is not above every one before them (a
     * shared entry: every exclusive one), and with {@code spans}, also of those that entered before such
     * an entry left.
     */
    private static List<Integer> faults(List<Entry> sorted, boolean spans) {
        List<Integer> faults = new ArrayList<>();
        long highest = Long.MIN_VALUE;
        long highestExclusive = Long.MIN_VALUE;
        long lastOut = Long.MIN_VALUE;
        long lastExclusiveOut = Long.MIN_VALUE;
        for (int i = 0; i < sorted.size(); i++) {
            Entry entry = sorted.get(i);
            boolean tokenBreak = entry.token() <= (entry.shared() ? highestExclusive : highest);
            boolean met = entry.in() < (entry.shared() ? lastExclusiveOut : lastOut);
            if (tokenBreak || (spans && met)) {
                faults.add(i);
            }
            highest = Math.max(highest, entry.token());
            lastOut = Math.max(lastOut, entry.out());
            if (!entry.shared()) {
                highestExclusive = Math.max(highestExclusive, entry.token());
                lastExclusiveOut = Math.max(lastExclusiveOut, entry.out());
            }
        }
        return faults;
    }

    private List<Entry> sorted() {
        List<Entry> sorted = new ArrayList<>(log);
        sorted.sort(Comparator.comparingLong(Entry::in));
        return sorted;
    }

    /** Enters the section, recording an overlap if another caller is inside; {@link #exit} leaves it. */
    public void enter() {
        if (inside.incrementAndGet() != 1 || sharing.get() != 0) {
            overlaps.incrementAndGet();
        }
        entries.incrementAndGet();
    }

    public void exit() {
        inside.decrementAndGet();
    }

    public int overlaps() {
        return overlaps.get();
    }

    public int entries() {
        return entries.get();
    }

    /** Entries made shared ({@link #passShared}). */
    public int sharedEntries() {
        return sharedEntries.get();
    }

    /** Shared entries made while another shared caller was inside. */
    public int sharedAtOnce() {
        return sharedAtOnce.get();
    }

    /** A worker that locks {@code lock}, {@link #pass passes}, and unlocks, until {@code stop}. */
    public Callable<Void> churn(RedisLock lock, AtomicBoolean stop) {
        return () -> {
            while (!stop.get()) {
                lock.lock();
                try {
                    pass();
                } finally {
                    lock.unlock();
                }
            }
            return null;
        };
    }
}
