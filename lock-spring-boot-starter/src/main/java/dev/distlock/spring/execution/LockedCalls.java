package dev.distlock.spring.execution;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.aopalliance.intercept.MethodInvocation;

/**
 * The front of the three call styles: runs one locked call the way its method hands back its result.
 * A value: blocking, the lock held while the method runs ({@link BlockingCall}, through
 * {@link LockExecutor#execute}). A
 * {@code CompletionStage}: the lock held until the stage completes ({@link StageCall}). A {@code Mono},
 * {@code Flux}, Kotlin {@code suspend} function or {@code Flow}: per subscription ({@link ReactiveCall},
 * loaded only for those, so applications without Reactor never load it). Infrastructure, not API.
 */
public final class LockedCalls {

    private LockedCalls() {}

    /**
     * Runs {@code invocation} inside the request's lock.
     *
     * @param checkValue applied to a plain value the method returned (may refuse it), not to deferred results
     * @param whenBusy the result when the lock stays busy for the whole wait; {@code null} to fail instead
     */
    @SuppressWarnings("unchecked")
    public static Object call(
            CallStyle style,
            LockExecutor executor,
            LockRequest request,
            MethodInvocation invocation,
            UnaryOperator<Object> checkValue,
            Supplier<Object> whenBusy)
            throws Throwable {
        return switch (style) {
            case VALUE -> executor.execute(request, () -> checkValue.apply(invocation.proceed()), whenBusy);
            case STAGE ->
                executor.executeAsync(request, () -> (CompletionStage<Object>) invocation.proceed(), whenBusy);
            case MONO, FLUX, SUSPEND, FLOW -> ReactiveCall.call(style, whenBusy != null, executor, request, invocation);
        };
    }

    /**
     * A call that failed before its lock was asked for (a key that does not evaluate), reported the way its
     * result reports errors: thrown for a value, a failed stage or publisher for deferred results.
     */
    public static Object failed(CallStyle style, RuntimeException error) {
        return switch (style) {
            case VALUE -> throw error;
            case STAGE -> CompletableFuture.failedFuture(error);
            case MONO, FLUX, SUSPEND, FLOW -> ReactiveCall.error(style, error);
        };
    }
}
