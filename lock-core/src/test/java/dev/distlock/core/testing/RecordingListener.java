package dev.distlock.core.testing;

import dev.distlock.core.LockInfo;
import dev.distlock.core.LockListener;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records every lock event, for assertions; thread-safe. */
public final class RecordingListener implements LockListener {

    public record Acquire(LockInfo lock, AcquireOutcome outcome, Duration waited) {}

    public record Release(LockInfo lock, Duration held) {}

    public record Renewal(LockInfo lock, RenewalOutcome outcome) {}

    public record LeaseLost(LockInfo lock, String reason) {}

    public final List<Acquire> acquires = new CopyOnWriteArrayList<>();
    public final List<Release> releases = new CopyOnWriteArrayList<>();
    public final List<Renewal> renewals = new CopyOnWriteArrayList<>();
    public final List<LeaseLost> leaseLosses = new CopyOnWriteArrayList<>();

    public record LongHold(LockInfo lock, Duration heldFor) {}

    public final List<LongHold> longHolds = new CopyOnWriteArrayList<>();

    @Override
    public void onLongHold(LockInfo lock, Duration heldFor) {
        longHolds.add(new LongHold(lock, heldFor));
    }

    @Override
    public void onAcquire(LockInfo lock, AcquireOutcome outcome, Duration waited) {
        acquires.add(new Acquire(lock, outcome, waited));
    }

    @Override
    public void onRelease(LockInfo lock, Duration held) {
        releases.add(new Release(lock, held));
    }

    @Override
    public void onRenewal(LockInfo lock, RenewalOutcome outcome) {
        renewals.add(new Renewal(lock, outcome));
    }

    @Override
    public void onLeaseLost(LockInfo lock, String reason) {
        leaseLosses.add(new LeaseLost(lock, reason));
    }

    public List<Acquire> acquires(String lockName) {
        return acquires.stream().filter(e -> e.lock().key().equals(lockName)).toList();
    }

    public List<Release> releases(String lockName) {
        return releases.stream().filter(e -> e.lock().key().equals(lockName)).toList();
    }

    public List<Renewal> renewals(String lockName, RenewalOutcome outcome) {
        return renewals.stream()
                .filter(e -> e.lock().key().equals(lockName) && e.outcome() == outcome)
                .toList();
    }

    public List<LeaseLost> leaseLosses(String lockName) {
        return leaseLosses.stream().filter(e -> e.lock().key().equals(lockName)).toList();
    }
}
