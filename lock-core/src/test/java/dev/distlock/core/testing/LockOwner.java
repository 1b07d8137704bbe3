package dev.distlock.core.testing;

import dev.distlock.core.LockClient;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One thread that owns locks across several steps of a test (lock, then later unlock), while the
 * test thread injects faults between the steps. Steps run in order on that same thread.
 */
public final class LockOwner implements AutoCloseable {

    private final AtomicReference<Thread> thread = new AtomicReference<>();
    private final ExecutorService executor;

    public LockOwner(String name) {
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            thread.set(t);
            return t;
        });
        run(() -> null); // creates the thread now, so thread() is known before the first step
    }

    /** A step that returns nothing. */
    public interface Step {
        void run() throws Exception;
    }

    /** Runs {@code step} on the owner thread and waits for it, as {@link #run(Callable)}. */
    public void act(Step step) {
        run(() -> {
            step.run();
            return null;
        });
    }

    /** Starts {@code step} on the owner thread without waiting for it. */
    public Future<Void> start(Step step) {
        return submit(() -> {
            step.run();
            return null;
        });
    }

    /** Starts {@code step} on the owner thread without waiting for it. */
    public <T> Future<T> submit(Callable<T> step) {
        return executor.submit(step);
    }

    /**
     * Runs {@code step} on the owner thread and returns its result (waits up to 30 s); what it throws
     * is the cause of the {@link StepFailed} thrown here.
     */
    public <T> T run(Callable<T> step) {
        try {
            return executor.submit(step).get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw new StepFailed(e.getCause());
        } catch (Exception e) {
            throw new IllegalStateException("step on " + thread.get().getName() + " did not finish: " + e, e);
        }
    }

    public Thread thread() {
        return thread.get();
    }

    /** The owner id this thread has in Redis for locks of {@code client}. */
    @SuppressWarnings("deprecation") // Thread.getId: threadId() needs Java 19, we run on 17
    public String ownerId(LockClient client) {
        return client.clientId() + ':' + thread.get().getId();
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }

    /** What a step threw, unwrapped. */
    public static final class StepFailed extends RuntimeException {
        StepFailed(Throwable cause) {
            super(cause);
        }
    }
}
