package dev.distlock.spring;

import dev.distlock.spring.aop.DeferredResults;
import dev.distlock.spring.execution.LockExecutor;
import dev.distlock.spring.execution.LockRequest;
import dev.distlock.spring.execution.LockedCall;
import java.util.function.Supplier;

/** How a {@link LockTemplate} checks its keys and runs its work, named in errors as {@code caller}. */
final class TemplateWork {

    private TemplateWork() {}

    static String requireKey(String caller, String key) {
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException(
                    caller + " needs a key naming what it protects, such as \"order:\" + orderId; got "
                            + (key == null ? "null" : "a blank string"));
        }
        return key;
    }

    /**
     * What the work returned, unless it is work that goes on after the lock is released (a future, a
     * Publisher, ...): the lock would not cover it, so the call fails instead (the lock is released as for
     * any failure).
     */
    static <T> T plain(String caller, T returned) {
        String why = DeferredResults.of(returned);
        if (why == null) {
            return returned;
        }
        throw new IllegalStateException(
                caller + " work returned a " + returned.getClass().getName() + ": " + why
                        + ", while the lock is released when the work returns, so that work would run unlocked (work it"
                        + " started already may still be running). Wait for the result inside the work (join(), block()), or"
                        + " use @DistributedLock on a method returning CompletableFuture, Mono or Flux, whose lock follows"
                        + " the result to its end");
    }

    static <T> T run(
            LockExecutor executor, String caller, LockRequest request, LockedCall<T> work, Supplier<T> whenBusy) {
        try {
            return executor.execute(request, work, whenBusy);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            // Suppliers and Runnables throw no checked exception; a sneaky one is still the caller's, so keep it as the
            // cause.
            throw new IllegalStateException(caller + " work threw a checked exception: " + t, t);
        }
    }
}
