package dev.distlock.spring.actuate;

import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

/** Remembers the last lease losses (at most {@value #KEPT}, none older than the window) for the health details. */
public final class RecentLeaseLosses implements LockListener {

    static final int KEPT = 20;

    private final Duration window;
    private final Clock clock;
    private final Deque<Loss> losses = new ArrayDeque<>();

    /** One lost hold: the lock's name (its key), its declared name, why, and when. */
    public record Loss(String key, String name, String type, String reason, Instant at) {}

    public RecentLeaseLosses(Duration window) {
        this(window, Clock.systemUTC());
    }

    RecentLeaseLosses(Duration window, Clock clock) {
        this.window = window;
        this.clock = clock;
    }

    @Override
    public void onLeaseLost(LockInfo lock, String reason) {
        synchronized (losses) {
            losses.addFirst(new Loss(lock.key(), lock.name(), lock.type().name(), reason, clock.instant()));
            while (losses.size() > KEPT) {
                losses.removeLast();
            }
        }
    }

    /** Losses within the window, newest first. */
    public List<Loss> recent() {
        Instant since = clock.instant().minus(window);
        synchronized (losses) {
            return losses.stream().filter(l -> l.at().isAfter(since)).toList();
        }
    }

    /** The window the losses are kept for. */
    public Duration window() {
        return window;
    }
}
