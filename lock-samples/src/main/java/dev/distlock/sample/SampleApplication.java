package dev.distlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The distlock sample: a stock-booking service whose bookings are serialised per SKU by
 * {@code @DistributedLock}, so no unit is ever sold twice, whatever the number of threads or
 * instances.
 *
 * <p>Redis is taken from {@code spring.data.redis.host/port} (localhost:6379); when nothing answers
 * there, the sample starts a throw-away redis-server itself (see {@link FallbackRedis}).
 */
@SpringBootApplication
@EnableScheduling // for NightlyReport's @Scheduled
public class SampleApplication {

    public static void main(String[] args) {
        run(args);
    }

    /** Starts the application as {@code main} does; the tests start it the same way. */
    static ConfigurableApplicationContext run(String... args) {
        SpringApplication application = new SpringApplication(SampleApplication.class);
        // Runs before any bean exists, so before anything connects to Redis.
        application.addListeners(new FallbackRedis());
        return application.run(args);
    }
}
