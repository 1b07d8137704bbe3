package dev.distlock.core.testing;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.core.internal.redis.ClientShutdown;
import dev.distlock.testsupport.FaultRelay;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import java.util.function.Consumer;

/**
 * A LockClient on a Lettuce client of its own whose every connection goes through a {@link FaultRelay}
 * to {@code server}: the test sets the Lettuce client up first (options, a command listener), then holds,
 * cuts or reorders the replies. Closing it closes the three.
 */
public final class RelayedLockClient implements AutoCloseable {

    public final FaultRelay relay;
    public final RedisClient lettuce;
    public final LockClient client;

    public RelayedLockClient(RedisServer server, Consumer<RedisClient> setUp, LockClientOptions options) {
        relay = FaultRelay.to(server);
        lettuce = RedisClient.create(RedisURI.create(relay.uri()));
        setUp.accept(lettuce);
        client = LockClient.create(lettuce, options);
    }

    @Override
    public void close() {
        client.close();
        ClientShutdown.shutdown(lettuce);
        relay.close();
    }
}
