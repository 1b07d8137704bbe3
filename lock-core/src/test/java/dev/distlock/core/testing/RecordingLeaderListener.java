package dev.distlock.core.testing;

import dev.distlock.core.LeaderListener;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records what a leader candidate was told, in order, with the thread and time of each call; thread-safe. */
public final class RecordingLeaderListener implements LeaderListener {

    /**
     * One call.
     *
     * @param granted whether it was {@code granted} (else {@code revoked})
     * @param reason the revocation's reason; empty for a grant
     * @param nanos when it was called (System.nanoTime)
     */
    public record Call(String role, long term, boolean granted, String reason, String thread, long nanos) {}

    public final List<Call> calls = new CopyOnWriteArrayList<>();

    @Override
    public void granted(String role, long term) {
        calls.add(new Call(role, term, true, "", Thread.currentThread().getName(), System.nanoTime()));
    }

    @Override
    public void revoked(String role, long term, String reason) {
        calls.add(new Call(role, term, false, reason, Thread.currentThread().getName(), System.nanoTime()));
    }

    public List<Call> grants() {
        return calls.stream().filter(Call::granted).toList();
    }

    public List<Call> revocations() {
        return calls.stream().filter(c -> !c.granted()).toList();
    }

    /** The term of the last grant; fails when none came. */
    public long lastTerm() {
        List<Call> grants = grants();
        if (grants.isEmpty()) {
            throw new AssertionError("no grant yet: " + calls);
        }
        return grants.get(grants.size() - 1).term();
    }
}
