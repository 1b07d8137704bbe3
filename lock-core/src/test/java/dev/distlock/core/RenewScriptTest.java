package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.script.LockScript;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** renew.lua run directly against a real Redis: only the owner extends, nothing is ever recreated. */
class RenewScriptTest extends ScriptTestSupport {

    RenewScriptTest() {
        super("renew");
    }

    private static final String OWNER_A = "client-a:1";
    private static final String OWNER_B = "client-b:1";

    @Test
    void ownerRenewalReturnsOneAndResetsTtl() throws Exception {
        acquire(OWNER_A, 2_000);

        assertThat(renew(OWNER_A, 60_000)).isEqualTo(1L);

        assertThat(sync.pttl(keys.lock())).isGreaterThan(30_000L);
        assertThat(sync.hget(keys.lock(), OWNER_A)).as("renewal must not change the hold count").isEqualTo("1");
    }

    @Test
    void renewalByAnotherOwnerReturnsZeroAndLeavesTtlAlone() throws Exception {
        acquire(OWNER_A, 2_000);

        assertThat(renew(OWNER_B, 60_000)).isZero();

        assertThat(sync.pttl(keys.lock())).isBetween(1L, 2_000L);
        assertThat(sync.hexists(keys.lock(), OWNER_B)).isFalse();
    }

    @Test
    void renewalOfAMissingLockReturnsZeroAndNeverRecreatesIt() throws Exception {
        assertThat(renew(OWNER_A, 60_000)).isZero();

        assertThat(sync.exists(keys.lock())).isZero();
    }

    @Test
    void renewalAfterReleaseDoesNotReviveTheLock() throws Exception {
        acquire(OWNER_A, 60_000);
        scripts.integer(LockScript.RELEASE, new String[] {keys.lock(), keys.channel()}, OWNER_A, "m").get(5, TimeUnit.SECONDS);

        assertThat(renew(OWNER_A, 60_000)).isZero();

        assertThat(sync.exists(keys.lock())).isZero();
    }

    private void acquire(String owner, long leaseMs) throws Exception {
        scripts.array(LockScript.ACQUIRE, new String[] {keys.lock(), keys.fence()}, owner, Long.toString(leaseMs),
                Long.toString(Duration.ofDays(1).toMillis())).get(5, TimeUnit.SECONDS);
    }

    private long renew(String owner, long leaseMs) throws Exception {
        return scripts.integer(LockScript.RENEW, new String[] {keys.lock()}, owner, Long.toString(leaseMs)).get(5, TimeUnit.SECONDS);
    }
}
