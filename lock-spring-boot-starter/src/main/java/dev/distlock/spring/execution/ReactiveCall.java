package dev.distlock.spring.execution;

import dev.distlock.spring.ReactiveLockContext;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.function.Function;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import org.springframework.aop.ProxyMethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;

/**
 * {@code @DistributedLock} on methods returning {@code Mono} or {@code Flux}: each subscription
 * acquires the lock without blocking, invokes the method and subscribes to its publisher once the lock
 * is held, and releases once when it completes, fails or is cancelled. Kotlin {@code suspend} functions
 * (a {@code Mono} by the time Spring AOP hands them over) and {@code Flow}s (adapted to a {@code Flux})
 * go the same way. Loaded only for such methods, so applications without Reactor never load it.
 */
final class ReactiveCall {

    private ReactiveCall() {}

    static Object call(
            CallStyle style,
            boolean skipWhenBusy,
            LockExecutor executor,
            LockRequest request,
            MethodInvocation invocation) {
        Mono<AsyncHold> acquire = acquire(skipWhenBusy, executor, request);
        boolean mono = style.single();
        Flux<Object> locked = Flux.usingWhen(
                acquire,
                // The method runs off the Redis client's I/O thread that granted the lock (see Invoker). The hop
                // is inside the hold's scope: a cancel before it runs still releases the hold.
                hold -> Flux.concat(
                        Flux.defer(() -> run(hold, executor, request, invocation, mono))
                                .subscribeOn(Schedulers.fromExecutor(
                                        executor.invoker().executor())),
                        released(hold)),
                hold -> release(hold, null),
                (hold, error) -> release(hold, error),
                hold -> release(hold, new CancellationException("subscription cancelled")));
        return mono ? locked.singleOrEmpty() : style == CallStyle.FLOW ? KotlinFlows.fromPublisher(locked) : locked;
    }

    /**
     * Releases once the work completed, still inside the publisher, so that a lease found lost reaches
     * the subscriber as LockLeaseExpiredException itself (a failing cleanup step would arrive wrapped).
     */
    private static Mono<Object> released(AsyncHold hold) {
        return Mono.defer(() -> Mono.fromFuture(hold.release(null))).then(Mono.empty());
    }

    /**
     * Releases on error or cancel (a release problem is added to the error, or logged), or finds the
     * release done already at the end of the work, where its failure was reported.
     */
    private static Mono<Void> release(AsyncHold hold, Throwable failure) {
        return Mono.fromFuture(hold.release(failure)).onErrorResume(e -> Mono.empty());
    }

    static Object error(CallStyle style, Throwable error) {
        return style.single()
                ? Mono.error(error)
                : style == CallStyle.FLOW ? KotlinFlows.fromPublisher(Flux.error(error)) : Flux.error(error);
    }

    /**
     * Empty when the lock stayed busy and onFailure is SKIP (the publisher then completes empty). A grant that
     * arrives as the subscription is cancelled is discarded by Reactor instead of passed on: it is released.
     */
    private static Mono<AsyncHold> acquire(boolean skipWhenBusy, LockExecutor executor, LockRequest request) {
        return Mono.fromFuture(() -> executor.acquireAsync(request), false)
                .doOnDiscard(Optional.class, granted -> granted.ifPresent(ReactiveCall::discarded))
                .flatMap(hold -> hold.map(Mono::just)
                        .orElseGet(() -> skipWhenBusy ? Mono.empty() : Mono.error(executor.busy(request))))
                .doOnDiscard(AsyncHold.class, ReactiveCall::discarded);
    }

    private static void discarded(Object hold) {
        ((AsyncHold) hold).release(new CancellationException("subscription cancelled as the lock was granted"));
    }

    @SuppressWarnings("unchecked")
    private static Publisher<Object> run(
            AsyncHold hold, LockExecutor executor, LockRequest request, MethodInvocation invocation, boolean mono) {
        // Every subscription calls the method anew, so it needs an invocation of its own.
        MethodInvocation call =
                invocation instanceof ProxyMethodInvocation proxied ? proxied.invocableClone() : invocation;
        Publisher<Object> publisher;
        try {
            // A Kotlin Flow is adapted to a Flux; suspend functions come as a Mono from Spring AOP already.
            publisher = hold.invoke(() -> {
                Object returned = call.proceed();
                return returned == null || returned instanceof Publisher
                        ? (Publisher<Object>) returned
                        : KotlinFlows.toPublisher(returned);
            });
        } catch (Throwable t) {
            return Flux.error(t);
        }
        if (publisher == null) {
            return Flux.error(new IllegalStateException("@DistributedLock method " + request.caller()
                    + " returned null instead of a " + (mono ? "Mono" : "Flux") + "; return an empty one instead"));
        }
        // Work ending first cancels the wait for this signal, not the signal: a hold's lease-lost stage is
        // read-only, and cancelling it would fail (Reactor would log that at ERROR on every call).
        // Work stopped for the loss completes without its result: the release then fails the subscriber with
        // LockLeaseExpiredException, whatever throw-on-lease-lost says.
        Mono<String> lost =
                Mono.fromFuture(hold.leaseLost().toCompletableFuture(), true).doOnNext(hold::cutShort);
        Function<Context, Context> lockContext = ctx -> ctx.put(ReactiveLockContext.TOKENS, hold.tokens())
                .put(ReactiveHolds.KEY, ReactiveHolds.inside(ctx, hold.listed(), executor.beforeCommitCheck()));
        if (mono) {
            Mono<Object> work = Mono.from(publisher).contextWrite(lockContext);
            return executor.cancelsOnLeaseLost() ? work.takeUntilOther(lost) : work;
        }
        Flux<Object> work = Flux.from(publisher).contextWrite(lockContext);
        return executor.cancelsOnLeaseLost() ? work.takeUntilOther(lost) : work;
    }
}
