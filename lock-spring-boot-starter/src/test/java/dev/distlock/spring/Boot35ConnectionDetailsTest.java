package dev.distlock.spring;

import java.util.function.Supplier;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;

/** {@link ConnectionDetailsChecks} on Spring Boot 3.5's RedisConnectionDetails; run in lock-boot35-tests only. */
class Boot35ConnectionDetailsTest extends ConnectionDetailsChecks {

    @Override
    Class<?> detailsType() {
        return RedisConnectionDetails.class;
    }

    @Override
    Supplier<?> details(int port, String password) {
        return () -> new RedisConnectionDetails() {
            @Override
            public String getPassword() {
                return password;
            }

            @Override
            public Standalone getStandalone() {
                return Standalone.of("localhost", port);
            }
        };
    }
}
