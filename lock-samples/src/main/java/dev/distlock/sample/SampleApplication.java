package dev.distlock.sample;

import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.scheduling.annotation.EnableScheduling;

/**
 * The distlock sample: a stock-booking service whose bookings are serialised per SKU by
 * {@code @DistributedLock}, so no unit is ever sold twice, whatever the number of threads or
 * instances.
 *
 * <pre>
 * java -jar lock-samples/target/lock-samples.jar           # the service, on port 8080
 * java -jar lock-samples/target/lock-samples.jar --demo    # 300 concurrent bookings of 100 units, a summary, exit
 * </pre>
 *
 * <p>Redis is taken from {@code spring.data.redis.host/port} (localhost:6379); when nothing answers
 * there, the sample starts a throw-away redis-server itself (see {@link FallbackRedis}).
 */
@SpringBootApplication
@EnableScheduling // for NightlyReport's @Scheduled
public class SampleApplication {

    public static void main(String[] args) {
        ConfigurableApplicationContext context = run(args);
        if (isDemo(context)) {
            // DemoRunner has printed its summary: stop like a batch job, with exit code 1 if it oversold.
            System.exit(SpringApplication.exit(context));
        }
    }

    /** Starts the application as {@code main} does; the tests start it the same way. */
    static ConfigurableApplicationContext run(String... args) {
        boolean demo = Arrays.asList(args).contains("--demo");
        SpringApplication application = new SpringApplication(SampleApplication.class);
        // Runs before any bean exists, so before anything connects to Redis.
        application.addListeners(new FallbackRedis());
        if (demo) {
            // The demo calls the service bean directly: no web server, so no clash with a running sample on 8080.
            application.setWebApplicationType(WebApplicationType.NONE);
        }
        // "--demo" is a shortcut for "--sample.demo=true", which switches DemoRunner on.
        String[] springArgs = Arrays.stream(args)
                .map(a -> a.equals("--demo") ? "--sample.demo=true" : a)
                .toArray(String[]::new);
        return application.run(springArgs);
    }

    static boolean isDemo(ConfigurableApplicationContext context) {
        return context.getEnvironment().getProperty("sample.demo", Boolean.class, false);
    }
}
