package dev.distlock.spring.execution;

/**
 * How a locked method hands back its result, which decides how long its lock is held and which call
 * runs it ({@link LockedCalls} picks). Infrastructure of the starter, not API.
 */
public enum CallStyle {
    /** A value (or nothing): the lock is held while the method runs ({@link LockExecutor#execute}). */
    VALUE,
    /** A {@code CompletionStage} or {@code CompletableFuture}: held until the stage completes ({@link StageCall}). */
    STAGE,
    /** A Reactor {@code Mono}: acquired on subscription, held until it completes, fails or is cancelled ({@link ReactiveCall}). */
    MONO,
    /** A Reactor {@code Flux}: as {@link #MONO}. */
    FLUX,
    /** A Kotlin {@code suspend} function (Spring AOP hands the interceptor a {@code Mono} of its result): as {@link #MONO}. */
    SUSPEND,
    /** A Kotlin {@code Flow}: collected as a {@code Flux}, as {@link #FLUX}. */
    FLOW;

    /** Whether the work is a publisher (Mono, Flux, suspend function or Flow), run by {@link ReactiveCall}. */
    public boolean reactive() {
        return this != VALUE && this != STAGE;
    }

    /** Whether the work is a publisher of at most one value. */
    boolean single() {
        return this == MONO || this == SUSPEND;
    }
}
