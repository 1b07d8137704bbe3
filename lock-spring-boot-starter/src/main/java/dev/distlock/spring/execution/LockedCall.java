package dev.distlock.spring.execution;

/** The work run while the lock is held. */
@FunctionalInterface
public interface LockedCall<T> {

    T call() throws Throwable;
}
