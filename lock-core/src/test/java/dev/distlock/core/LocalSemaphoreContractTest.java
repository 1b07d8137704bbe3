package dev.distlock.core;

import dev.distlock.core.internal.memory.MemoryPort;
import dev.distlock.core.internal.memory.MemoryRedis;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** The semaphore contract in local mode: every client a {@link LockClient#local} client on one in-process store. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LocalSemaphoreContractTest extends SemaphoreContract {

    private final MemoryRedis store = new MemoryRedis();

    @AfterAll
    void closeStore() {
        store.close();
    }

    @Override
    LockClient open(LockClientOptions options) {
        return LockClient.local(MemoryPort.of(store), options);
    }
}
