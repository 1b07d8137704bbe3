package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.testing.FairGrantRun;
import dev.distlock.core.testing.Names;
import dev.distlock.testsupport.BehaviourTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link LockClientOptions.Builder#grantsInMessages}: with it (the default), a fair lock's waiter of
 * another client holds the lock on the wake-up message that carries its grant, and Redis runs no script
 * between the release and the hold but the release; without it, the waiter takes the grant with an acquire
 * attempt of its own. The waiter re-checks only every 60 s, so only the message moves it.
 */
@BehaviourTest
class FairGrantsInMessagesTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aWaiterTakesAFairGrantFromTheMessageOnlyWhenTheOptionSaysSo(boolean fromMessages) throws Exception {
        RedisServer server = redis.server();
        String name = Names.fresh("fair-grants-" + fromMessages);
        LockClientOptions options =
                LockClientOptions.builder().grantsInMessages(fromMessages).build();
        try (LockClient holder = LockClient.create(RedisURI.create(server.uri()), options);
                LockClient waiting = LockClient.create(RedisURI.create(server.uri()), options)) {
            long runs = FairGrantRun.scriptsUntilHeld(holder, waiting, name, server);

            if (fromMessages) {
                assertThat(runs)
                        .as("scripts from the release until the waiter held the lock")
                        .isEqualTo(1);
            } else {
                assertThat(runs)
                        .as("the release, then the waiter's own attempt")
                        .isGreaterThanOrEqualTo(2);
            }
        }
    }

    @Test
    void onByDefault() {
        assertThat(LockClientOptions.defaults().grantsInMessages()).isTrue();
    }
}
