package dev.distlock.spring.execution;

import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Where async, reactive and Kotlin methods are invoked once their lock is held: daemon threads
 * {@code distlock-invoke-N}, made as calls need them and kept a minute when idle. Never the Redis
 * client's I/O thread that completed the acquisition: a method that blocks before returning its stage
 * or publisher would stall every Redis reply of the application, and a synchronous Redis call there
 * could wait for a reply only that thread reads. Not the common pool: on machines of up to 2 CPUs
 * CompletableFuture starts a new thread per task for it. Nor the application's task executor: a full
 * pool of {@code @Async} methods waiting for locked calls queued behind them would wait for ever.
 * Infrastructure of the starter, not API.
 */
public final class Invoker {

    private static final AtomicInteger STARTED = new AtomicInteger();

    private static final ExecutorService POOL = Executors.newCachedThreadPool(task -> {
        Thread thread = new Thread(task, "distlock-invoke-" + STARTED.incrementAndGet());
        thread.setDaemon(true);
        return thread;
    });

    private Invoker() {}

    /** The invoking threads. */
    public static Executor executor() {
        return POOL;
    }
}
