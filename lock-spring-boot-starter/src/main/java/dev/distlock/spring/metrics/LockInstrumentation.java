package dev.distlock.spring.metrics;

/**
 * Instruments the locks taken by {@code @DistributedLock} and {@code LockTemplate}: one acquisition
 * and one hold per call, whatever the number of keys. Tagged by the declared name and the type as
 * the annotation spells it, never by the resolved key. Infrastructure of the starter, not API.
 */
public interface LockInstrumentation {

    /** Records nothing: no Micrometer on the classpath, or metrics switched off. */
    LockInstrumentation NONE = (name, type) -> new Acquisition() {
        @Override
        public Holding acquired() {
            return leaseLost -> {};
        }

        @Override
        public Holding acquiredAsync() {
            return acquired();
        }

        @Override
        public void failed(String outcome, Throwable error) {}
    };

    /** Starts timing an acquisition of the lock declared as {@code name}, of {@code type} (e.g. REENTRANT). */
    Acquisition acquiring(String name, String type);

    /** An acquisition being timed. */
    interface Acquisition {

        /** The lock was granted: stops the wait, starts timing the hold, in scope on this thread until released. */
        Holding acquired();

        /**
         * The lock was granted to an async call: as {@link #acquired()}, but the hold is in scope only
         * inside {@link Holding#inScope}, since the call goes on and is released on other threads.
         */
        Holding acquiredAsync();

        /**
         * The lock was not granted.
         *
         * @param outcome {@link LockMetrics#TIMEOUT}, {@link LockMetrics#UNAVAILABLE}, {@link LockMetrics#ERROR} or {@link LockMetrics#CANCELLED}
         * @param error what went wrong, or {@code null} for a plain timeout
         */
        void failed(String outcome, Throwable error);
    }

    /** A hold being timed. */
    interface Holding {

        /** The lock was released (or found lost at release: {@code leaseLost} is the exception then). */
        void released(Throwable leaseLost);

        /** Opens the hold's scope on this thread (async holds only; others are in scope already); close it on the same thread. */
        default AutoCloseable inScope() {
            return () -> {};
        }
    }

    /** The type tag: the core's type, spelt as the annotation spells it ({@code REENTRANT}). */
    static String type(dev.distlock.core.LockType type) {
        return type.name();
    }
}
