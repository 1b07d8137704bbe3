package dev.distlock.core;

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
 * Counts callers inside a critical section at once: any second one is an overlap. The section lasts a
 * real span ({@link #SPAN_NANOS}, or a round trip between {@link #enter} and {@link #exit}): left empty,
 * two holders at once would almost never be inside at the same instant, and the check could not fail.
 */
final class Exclusion {

    /** How long {@link #pass} stays inside: about a lock round trip, so an overlap of two holders shows. */
    static final long SPAN_NANOS = TimeUnit.MICROSECONDS.toNanos(150);

    private final AtomicInteger inside = new AtomicInteger();
    private final AtomicInteger overlaps = new AtomicInteger();
    private final AtomicInteger entries = new AtomicInteger();
    /** Entries made through {@link #pass(String, long)}, for {@link #tokenBreaks} and {@link #report}. */
    private final ConcurrentLinkedQueue<Entry> log = new ConcurrentLinkedQueue<>();

    /** Who entered with which fencing token, when it entered and left (System.nanoTime). */
    private record Entry(String who, long token, long in, long out) {}

    /** Enters, stays {@link #SPAN_NANOS} (parked: fine on a virtual thread, never on an event loop), leaves. */
    void pass() {
        enter();
        LockSupport.parkNanos(SPAN_NANOS);
        exit();
    }

    /**
     * As {@link #pass()}, also recording who passed with which fencing token: entries are then checked
     * for growing tokens ({@link #tokenBreaks}) and described around any fault ({@link #report}).
     */
    void pass(String who, long token) {
        long in = System.nanoTime();
        pass();
        log.add(new Entry(who, token, in, System.nanoTime()));
    }

    /** Entries (of {@link #pass(String, long)}) whose token is not above the one entering before them. */
    int tokenBreaks() {
        List<Entry> sorted = sorted();
        int breaks = 0;
        for (int i = 1; i < sorted.size(); i++) {
            if (sorted.get(i).token() <= sorted.get(i - 1).token()) {
                breaks++;
            }
        }
        return breaks;
    }

    /**
     * The recorded entries around the first overlaps or token breaks (who, token, in and out in µs from
     * the first entry): what a failure needs to tell which holders met.
     */
    String report() {
        List<Entry> sorted = sorted();
        StringBuilder out = new StringBuilder();
        int faults = 0;
        for (int i = 1; i < sorted.size() && faults < 5; i++) {
            Entry before = sorted.get(i - 1);
            Entry entry = sorted.get(i);
            if (entry.in() < before.out() || entry.token() <= before.token()) {
                faults++;
                out.append("\naround entry ").append(i).append(':');
                for (int j = Math.max(0, i - 4); j < Math.min(sorted.size(), i + 4); j++) {
                    Entry e = sorted.get(j);
                    long start = sorted.get(0).in();
                    out.append(String.format(
                            "%n  %s token %d in %d µs out %d µs",
                            e.who(), e.token(), (e.in() - start) / 1000, (e.out() - start) / 1000));
                }
            }
        }
        return out.length() == 0 ? "no overlap or token break among " + sorted.size() + " entries" : out.toString();
    }

    private List<Entry> sorted() {
        List<Entry> sorted = new ArrayList<>(log);
        sorted.sort(Comparator.comparingLong(Entry::in));
        return sorted;
    }

    /** Enters the section, recording an overlap if another caller is inside; {@link #exit} leaves it. */
    void enter() {
        if (inside.incrementAndGet() != 1) {
            overlaps.incrementAndGet();
        }
        entries.incrementAndGet();
    }

    void exit() {
        inside.decrementAndGet();
    }

    int overlaps() {
        return overlaps.get();
    }

    int entries() {
        return entries.get();
    }

    /** A worker that locks {@code lock}, {@link #pass passes}, and unlocks, until {@code stop}. */
    Callable<Void> churn(RedisLock lock, AtomicBoolean stop) {
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
