package dev.distlock.benchmark;

/**
 * What one worker (a thread, or one async caller) counted. Each worker has its own, written by one
 * thread at a time, so counting is plain field arithmetic; merged after the run.
 */
final class Tally {

    long ops;
    long measured;
    long violations;
    long orderViolations;
    /** Grants that passed an earlier worker only by about as long as the JVM stood still meanwhile. */
    long orderUndecided;

    final LatencyHistogram latency = new LatencyHistogram();
    /** Release-to-grant times of grants to a holder that was waiting when another released. */
    final LatencyHistogram handOff = new LatencyHistogram();
    /** The subset of {@link #handOff} where the releasing holder was in another JVM. */
    final LatencyHistogram remoteHandOff = new LatencyHistogram();

    void handOff(long nanos, boolean remote) {
        handOff.record(nanos);
        if (remote) {
            remoteHandOff.record(nanos);
        }
    }

    /** What one measured grant of a fair lock did to arrival order. */
    void order(ArrivalOrder.Verdict verdict) {
        switch (verdict) {
            case OUT_OF_ORDER -> orderViolations++;
            case UNDECIDED -> orderUndecided++;
            case IN_ORDER -> {}
        }
    }

    /** One finished lock / check / unlock op that took {@code nanos}. */
    void op(long nanos, boolean inWindow) {
        ops++;
        if (inWindow) {
            measured++;
            latency.record(nanos);
        }
    }
}
