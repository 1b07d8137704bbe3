package dev.distlock.spring;

import java.util.function.Supplier;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;

/** {@link ConnectionDetailsChecks} on Spring Boot 4.x's DataRedisConnectionDetails; left out on Boot 3.5. */
class Boot4ConnectionDetailsTest extends ConnectionDetailsChecks {

    @Override
    Class<?> detailsType() {
        return DataRedisConnectionDetails.class;
    }

    @Override
    Supplier<?> details(int port, String password) {
        return () -> new DataRedisConnectionDetails() {
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
