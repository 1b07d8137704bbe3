package dev.distlock.core;

import dev.distlock.core.internal.memory.MemoryPort;
import dev.distlock.core.internal.memory.MemoryRedis;
import org.junit.jupiter.api.AfterAll;

/**
 * The shared lock contract (lock-test-support) in local mode: every client a {@link LockClient#local} client
 * on one in-process store, as the instances of one application share one Redis.
 */
class LocalLockContractTest extends LockContractTest {

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
