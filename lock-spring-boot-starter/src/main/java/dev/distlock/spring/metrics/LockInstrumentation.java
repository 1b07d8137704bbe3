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
            return leaseLost -> {
            };
        }

        @Override
        public void failed(String outcome, Throwable error) {
        }
    };

    /** Starts timing an acquisition of the lock declared as {@code name}, of {@code type} (e.g. REENTRANT). */
    Acquisition acquiring(String name, String type);

    /** An acquisition being timed. */
    interface Acquisition {

        /** The lock was granted: stops the wait, starts timing the hold. */
        Holding acquired();

        /**
         * The lock was not granted.
         *
         * @param outcome {@link LockMetrics#TIMEOUT}, {@link LockMetrics#UNAVAILABLE} or {@link LockMetrics#ERROR}
         * @param error what went wrong, or {@code null} for a plain timeout
         */
        void failed(String outcome, Throwable error);
    }

    /** A hold being timed. */
    interface Holding {

        /** The lock was released (or found lost at release: {@code leaseLost} is the exception then). */
        void released(Throwable leaseLost);
    }

    /** The type tag: the core's type, spelt as the annotation spells it ({@code REENTRANT}). */
    static String type(dev.distlock.core.LockType type) {
        return type.name();
    }
}
