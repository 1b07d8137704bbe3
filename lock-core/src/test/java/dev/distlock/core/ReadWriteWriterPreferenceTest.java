package dev.distlock.core;

import static dev.distlock.core.testing.Attempts.tryOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.distlock.core.internal.engine.ReadWriteKind;
import dev.distlock.core.internal.redis.LockKeys;
import dev.distlock.core.testing.Names;
import dev.distlock.core.testing.RelayedLockClient;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.OtherThread;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.Waits;
import io.lettuce.core.RedisURI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A writer waiting for a read/write lock holds new readers back, so readers whose holds overlap
 * cannot keep it out: it gets in once the readers already inside are done. Readers already inside
 * may still re-enter, and new readers are held back only while a writer really waits: not after it
 * gave up, and not for more than a moment after it vanished without saying so.
 */
@BehaviourTest
class ReadWriteWriterPreferenceTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private LockClient readers;
    private LockClient writers;
    private RedisProbe probe;
    private String name;

    @BeforeEach
    void setUp() {
        readers = LockClient.create(RedisURI.create(redis.server().uri()));
        writers = LockClient.create(RedisURI.create(redis.server().uri()));
        probe = RedisProbe.connect(redis.server());
        name = Names.fresh("rw-writer-first");
    }

    @AfterEach
    void tearDown() {
        readers.close();
        writers.close();
        probe.close();
    }

    @Test
    void aWaitingWriterGetsInAlthoughReadersKeepOverlapping() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger reads = new AtomicInteger();
        List<OtherThread<Integer>> loops = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            loops.add(OtherThread.start(() -> {
                int mine = 0;
                RedisLock read = readers.getReadWriteLock(name).readLock();
                while (!stop.get()) {
                    if (read.tryLock(Duration.ofSeconds(20))) {
                        // counted on entry: a reader counted after its release could count after a writer's grant
                        reads.incrementAndGet();
                        mine++;
                        TimeUnit.MILLISECONDS.sleep(100); // each hold overlaps the next readers'
                        read.unlock();
                    }
                }
                return mine;
            }));
            TimeUnit.MILLISECONDS.sleep(20);
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> reads.get() >= 10);

        RedisLock write = writers.getReadWriteLock(name).writeLock();
        boolean got = write.tryLock(Duration.ofSeconds(6));
        int readsWhileWriting = reads.get();
        if (got) {
            TimeUnit.MILLISECONDS.sleep(100);
            assertThat(reads.get())
                    .as("no reader let in while the writer holds")
                    .isEqualTo(readsWhileWriting);
            write.unlock();
        }
        int readsAfter = reads.get();
        await().atMost(Duration.ofSeconds(5)).until(() -> reads.get() >= readsAfter + 3);
        stop.set(true);
        for (OtherThread<Integer> loop : loops) {
            assertThat(loop.get()).isPositive();
        }

        assertThat(got).as("writer got in while readers kept overlapping").isTrue();
    }

    @Test
    void newReadersWaitWhileAWriterWaitsButReadersInsideReenter() throws Exception {
        RedisLock inside = readers.getReadWriteLock(name).readLock();
        inside.lock();
        OtherThread<Boolean> writer = waitingWriter(Duration.ofSeconds(20));

        assertThat(OtherThread.call(() -> tryRead(readers, Waits.RUNS_OUT)))
                .as("a new reader of the holder's client")
                .isFalse();
        assertThat(OtherThread.call(() -> tryRead(writers, Waits.RUNS_OUT)))
                .as("a new reader of the writer's client")
                .isFalse();
        assertThat(tryOnce(inside)).as("the reader inside re-enters").isTrue();
        assertThat(inside.getHoldCount()).isEqualTo(2);
        assertThat(writer.result).isNotDone();

        inside.unlock();
        inside.unlock();
        assertThat(writer.get()).isTrue();
        assertThat(writerMarks()).as("the writer's mark ends with its grant").isZero();
    }

    @Test
    void theWriteHolderStillTakesReadHoldsWhileAnotherWriterWaits() throws Exception {
        RedisReadWriteLock rw = readers.getReadWriteLock(name);
        rw.writeLock().lock();
        OtherThread<Boolean> writer = waitingWriter(Duration.ofSeconds(20));

        assertThat(tryOnce(rw.readLock())).as("downgrade while a writer waits").isTrue();
        rw.writeLock().unlock();
        assertThat(rw.readLock().isHeldByCurrentThread()).isTrue();
        assertThat(OtherThread.call(() -> tryRead(readers, Waits.RUNS_OUT)))
                .as("a new reader while the writer still waits")
                .isFalse();
        rw.readLock().unlock();
        assertThat(writer.get()).isTrue();
    }

    @Test
    void aWriterThatGaveUpNoLongerHoldsReadersBack() throws Exception {
        RedisLock inside = readers.getReadWriteLock(name).readLock();
        inside.lock();
        OtherThread<Boolean> writer = waitingWriter(Duration.ofMillis(1500));
        OtherThread<Long> reader = OtherThread.start(() -> {
            RedisLock read = readers.getReadWriteLock(name).readLock();
            if (!read.tryLock(Duration.ofSeconds(20))) {
                throw new AssertionError("reader never got in");
            }
            long at = System.nanoTime();
            read.unlock();
            return at;
        });

        assertThat(writer.get()).as("the writer's wait ran out").isFalse();
        long gaveUp = System.nanoTime();
        // its give-up takes the mark away and wakes the reader held back by it
        assertThat(Duration.ofNanos(reader.get() - gaveUp)).isLessThan(Duration.ofSeconds(1));
        await().atMost(Duration.ofSeconds(2)).until(() -> writerMarks() == 0);
        inside.unlock();
    }

    @Test
    void anAsyncWriterHoldsNewReadersBackToo() throws Exception {
        RedisLock inside = readers.getReadWriteLock(name).readLock();
        inside.lock();
        var pending = writers.getReadWriteLock(name)
                .writeLock()
                .tryLockAsync(Duration.ofSeconds(20))
                .toCompletableFuture();
        awaitWriterRecorded();

        assertThat(OtherThread.call(() -> tryRead(readers, Waits.RUNS_OUT))).isFalse();
        inside.unlock();

        Optional<LockHandle> handle = pending.get(10, TimeUnit.SECONDS);
        assertThat(handle).isPresent();
        handle.get().unlockAsync().toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertThat(tryRead(readers, Duration.ofSeconds(5))).isTrue();
    }

    @Test
    void aWriterWaitingLongerThanItsMarkKeepsRenewingIt() throws Exception {
        RedisLock inside = readers.getReadWriteLock(name).readLock();
        inside.lock();
        OtherThread<Boolean> writer = waitingWriter(Duration.ofSeconds(30));

        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ReadWriteKind.WRITER_MARK_MS * 2);
        while (System.nanoTime() - until < 0) {
            assertThat(OtherThread.call(() -> tryRead(readers, Waits.RUNS_OUT)))
                    .as("a new reader, %d ms into the writer's wait", ReadWriteKind.WRITER_MARK_MS * 2)
                    .isFalse();
        }
        inside.unlock();
        assertThat(writer.get()).isTrue();
    }

    @Test
    void aWriterCutOffWhileWaitingHoldsReadersBackNoLongerThanItsMark() throws Exception {
        RedisLock inside = readers.getReadWriteLock(name).readLock();
        inside.lock();
        try (RelayedLockClient cutOff = new RelayedLockClient(
                redis.server(), lettuce -> {}, LockClientOptions.builder().build())) {
            OtherThread<Boolean> writer = OtherThread.start(
                    () -> cutOff.client.getReadWriteLock(name).writeLock().tryLock(Duration.ofSeconds(30)));
            awaitWriterRecorded();
            cutOff.relay.blackHole(); // its retries and its give-up never reach Redis: as if its host died

            long start = System.nanoTime();
            assertThat(tryRead(readers, Duration.ofSeconds(10))).isTrue();
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .as("held back by a writer nobody hears from")
                    .isLessThan(Duration.ofMillis(ReadWriteKind.WRITER_MARK_MS + 2000));
            writer.thread.interrupt();
        }
        inside.unlock();
    }

    /** A writer of {@link #writers} waiting up to {@code wait} on another thread, once Redis has it marked as waiting. */
    private OtherThread<Boolean> waitingWriter(Duration wait) {
        OtherThread<Boolean> writer = OtherThread.start(
                () -> writers.getReadWriteLock(name).writeLock().tryLock(wait));
        awaitWriterRecorded();
        return writer;
    }

    /** Waits until a writer has recorded itself in Redis as waiting. */
    private void awaitWriterRecorded() {
        await().atMost(Duration.ofSeconds(5)).until(() -> writerMarks() > 0);
    }

    private long writerMarks() {
        return probe.sync()
                .hlen(LockKeys.of(LockClientOptions.DEFAULT_KEY_PREFIX, name).writers());
    }

    /** Takes and releases a new read hold of {@code client}'s on the current thread; whether it got in. */
    private boolean tryRead(LockClient client, Duration wait) throws InterruptedException {
        RedisLock read = client.getReadWriteLock(name).readLock();
        boolean got = read.tryLock(wait);
        if (got) {
            read.unlock();
        }
        return got;
    }
}
