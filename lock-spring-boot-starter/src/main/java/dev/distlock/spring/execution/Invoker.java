package dev.distlock.spring.execution;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.core.task.SimpleAsyncTaskExecutor;
import org.springframework.util.ClassUtils;

/**
 * Where async, reactive and Kotlin methods are invoked once their lock is held: daemon threads
 * {@code distlock-invoke-N}, made as calls need them and kept a minute when idle; or, with
 * {@code spring.threads.virtual.enabled=true} on Java 21+, a new virtual thread of that name per call.
 * Never the Redis client's I/O thread that completed the acquisition: a method that blocks before
 * returning its stage or publisher would stall every Redis reply of the application, and a synchronous
 * Redis call there could wait for a reply only that thread reads. Not the common pool: on machines of up
 * to 2 CPUs CompletableFuture starts a new thread per task for it. Nor the application's task executor: a
 * full pool of {@code @Async} methods waiting for locked calls queued behind them would wait for ever.
 *
 * <p>A {@code CompletionStage} method runs with its caller's context ({@link #withCallerContext()}): what
 * Micrometer's context propagation carries (the current observation, and with it the trace; Spring
 * Security's context; the MDC once {@code Slf4jThreadLocalAccessor} is registered), when
 * {@code io.micrometer:context-propagation} is on the classpath. Infrastructure of the starter, not API.
 */
public final class Invoker implements AutoCloseable {

    private static final String NAME = "distlock-invoke-";

    private static final boolean CONTEXT_PROPAGATION =
            ClassUtils.isPresent("io.micrometer.context.ContextSnapshotFactory", Invoker.class.getClassLoader());

    private final Executor executor;
    private final ExecutorService pool;
    private final boolean virtualThreads;

    private Invoker(boolean virtualThreads) {
        this.virtualThreads = virtualThreads;
        if (virtualThreads) {
            SimpleAsyncTaskExecutor perCall = new SimpleAsyncTaskExecutor(NAME);
            perCall.setVirtualThreads(true);
            this.executor = perCall;
            this.pool = null;
        } else {
            AtomicInteger started = new AtomicInteger();
            this.pool = Executors.newCachedThreadPool(task -> {
                Thread thread = new Thread(task, NAME + started.incrementAndGet());
                thread.setDaemon(true);
                return thread;
            });
            this.executor = pool;
        }
    }

    /**
     * The invoker of an application: virtual threads when it asks for them
     * ({@code spring.threads.virtual.enabled}) and the JVM has them (Java 21+), as Spring Boot's own
     * executors decide; else a pool of platform threads.
     */
    public static Invoker create(boolean virtualThreadsEnabled) {
        return new Invoker(virtualThreadsEnabled && Runtime.version().feature() >= 21);
    }

    /** The invoking threads. */
    public Executor executor() {
        return executor;
    }

    /** Whether each call gets a virtual thread of its own. */
    public boolean virtualThreads() {
        return virtualThreads;
    }

    /**
     * The invoking threads, running each task with the context of the thread that calls this (captured
     * now): call it on the caller's thread, use it on whatever thread completes the wait.
     */
    public Executor withCallerContext() {
        return CONTEXT_PROPAGATION ? CallerContext.capture().wrapExecutor(executor) : executor;
    }

    /** Stops the idle platform threads when the application closes; running calls end on their own. */
    @Override
    public void close() {
        if (pool != null) {
            pool.shutdown();
        }
    }
}
