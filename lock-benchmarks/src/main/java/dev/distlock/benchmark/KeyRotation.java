package dev.distlock.benchmark;

import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

/**
 * One worker's lock over several keys: {@link #next} picks one of them at random for the next op and
 * gives its occupancy slot; {@link #lock} and {@link #unlock} act on that key. A worker uses it from
 * its own thread only, so the current key is a plain field.
 */
final class KeyRotation implements Lock {

    private final List<Lock> locks;
    private final List<Occupancy.Slot> slots;
    private int current;

    KeyRotation(List<Lock> locks, List<Occupancy.Slot> slots) {
        if (locks.size() != slots.size() || locks.isEmpty()) {
            throw new IllegalArgumentException("one slot per lock, at least one lock");
        }
        this.locks = locks;
        this.slots = slots;
    }

    /** Moves to a key picked at random; returns its slot. */
    Occupancy.Slot next() {
        current = ThreadLocalRandom.current().nextInt(locks.size());
        return slots.get(current);
    }

    @Override
    public void lock() {
        locks.get(current).lock();
    }

    @Override
    public void unlock() {
        locks.get(current).unlock();
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        locks.get(current).lockInterruptibly();
    }

    @Override
    public boolean tryLock() {
        return locks.get(current).tryLock();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return locks.get(current).tryLock(time, unit);
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("no conditions");
    }
}
