package dev.distlock.core;

import dev.distlock.core.script.ScriptRunner;
import dev.distlock.testsupport.RedisExtension;
import io.lettuce.core.api.sync.RedisCommands;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Fixture of the tests that run lock scripts directly: a real Redis, a plain connection, fresh keys. */
abstract class ScriptTestSupport {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private final String keyHint;
    RedisProbe probe;
    RedisCommands<String, String> sync;
    ScriptRunner scripts;
    LockKeys keys;

    ScriptTestSupport(String keyHint) {
        this.keyHint = keyHint;
    }

    @BeforeEach
    void connect() {
        probe = RedisProbe.connect(redis.server());
        sync = probe.sync();
        scripts = probe.scripts();
        keys = LockKeys.of("lock:", Names.fresh(keyHint));
    }

    @AfterEach
    void close() {
        probe.close();
    }
}
