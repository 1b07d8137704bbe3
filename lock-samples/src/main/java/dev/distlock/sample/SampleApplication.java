package dev.distlock.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The distlock sample: a stock-booking service whose bookings are serialised per SKU by
 * {@code @DistributedLock}, so no unit is ever sold twice, whatever the number of threads or
 * instances. Redis is taken from {@code spring.data.redis.host/port} (localhost:6379).
 */
@SpringBootApplication
@EnableScheduling // for NightlyReport's @Scheduled
public class SampleApplication {

    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }
}
