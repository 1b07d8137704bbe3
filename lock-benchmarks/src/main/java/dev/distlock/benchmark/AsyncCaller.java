package dev.distlock.benchmark;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;

/**
 * One async caller of {@link Workload#callers}: runs its cycle, records it in its own tally, and queues
 * its next one on the pool until the workload stops; an error fails the whole workload.
 */
final class AsyncCaller implements Runnable {
    private final Workload workload;
    private final LockProvider.AsyncCycle cycle;
    private final Occupancy.Slot slot;
    private final long holder;
    private final ExecutorService pool;
    private final CountDownLatch done;
    private final Tally tally = new Tally();

    AsyncCaller(
            Workload workload,
            LockProvider.AsyncCycle cycle,
            Occupancy.Slot slot,
            long holder,
            ExecutorService pool,
            CountDownLatch done) {
        this.workload = workload;
        this.cycle = cycle;
        this.slot = slot;
        this.holder = holder;
        this.pool = pool;
        this.done = done;
    }

    Tally tally() {
        return tally;
    }

    @Override
    public void run() {
        int p = workload.phase();
        if (p == Workload.STOP) {
            done.countDown();
            return;
        }
        long start = System.nanoTime();
        try {
            cycle.run(() -> {
                        slot.enter(holder, start, System.nanoTime(), tally, p == Workload.MEASURE);
                        slot.leave(holder);
                    })
                    .whenComplete((ignored, error) -> {
                        if (error != null) {
                            workload.fail(error);
                            done.countDown();
                            return;
                        }
                        tally.op(System.nanoTime() - start, p == Workload.MEASURE);
                        pool.execute(this);
                    });
        } catch (RuntimeException e) {
            workload.fail(e);
            done.countDown();
        }
    }
}
