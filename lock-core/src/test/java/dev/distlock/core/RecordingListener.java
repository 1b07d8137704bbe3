package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records every lock event, for assertions; thread-safe. */
final class RecordingListener implements LockListener {

    record Acquire(LockInfo lock, AcquireOutcome outcome, Duration waited) {}

    record Release(LockInfo lock, Duration held) {}

    record Renewal(LockInfo lock, RenewalOutcome outcome) {}

    record LeaseLost(LockInfo lock, String reason) {}

    final List<Acquire> acquires = new CopyOnWriteArrayList<>();
    final List<Release> releases = new CopyOnWriteArrayList<>();
    final List<Renewal> renewals = new CopyOnWriteArrayList<>();
    final List<LeaseLost> leaseLosses = new CopyOnWriteArrayList<>();

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

    List<Acquire> acquires(String lockName) {
        return acquires.stream().filter(e -> e.lock().key().equals(lockName)).toList();
    }

    List<Release> releases(String lockName) {
        return releases.stream().filter(e -> e.lock().key().equals(lockName)).toList();
    }

    List<Renewal> renewals(String lockName, RenewalOutcome outcome) {
        return renewals.stream()
                .filter(e -> e.lock().key().equals(lockName) && e.outcome() == outcome)
                .toList();
    }

    List<LeaseLost> leaseLosses(String lockName) {
        return leaseLosses.stream().filter(e -> e.lock().key().equals(lockName)).toList();
    }
}
