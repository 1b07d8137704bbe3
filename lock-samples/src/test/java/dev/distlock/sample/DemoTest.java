package dev.distlock.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.testsupport.IntegrationTest;
import dev.distlock.testsupport.RedisExtension;
import dev.distlock.testsupport.RedisServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/** The application started as {@code main} starts it: the demo, and the fallback Redis. */
@ExtendWith(OutputCaptureExtension.class)
@IntegrationTest
class DemoTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @Test
    void demoOnAMachineWithoutRedisStartsOneSellsExactlyTheStockAndStopsIt(CapturedOutput output) {
        int nothingThere = dev.distlock.testsupport.Ports.closed();
        ConfigurableApplicationContext context =
                SampleApplication.run("--demo", "--spring.data.redis.port=" + nothingThere);
        RedisServer fallback = context.getBean(FallbackRedis.BEAN_NAME, RedisServer.class);
        DemoRunner.Sale sale = context.getBean(DemoRunner.class).lockedSale();

        assertThat(SpringApplication.exit(context)).as("exit code").isZero();
        assertThat(sale.sold()).isEqualTo(DemoRunner.STOCK);
        assertThat(sale.oversold()).isZero();
        assertThat(sale.failed()).isZero();
        assertThat(sale.stockLeft()).isZero();
        assertThat(fallback.port()).isEqualTo(nothingThere);
        assertThat(fallback.isRunning())
                .as("fallback Redis stopped with the application")
                .isFalse();
        assertThat(output)
                .contains(
                        "Nothing answers at localhost:" + nothingThere,
                        "starts a throw-away Redis",
                        "oversold       0",
                        "ran 1, skipped 3",
                        "RESULT: OK");
    }

    @Test
    void runningRedisIsUsedAndNoFallbackIsStarted(CapturedOutput output) {
        try (ConfigurableApplicationContext context = SampleApplication.run(
                "--spring.main.web-application-type=none",
                "--spring.data.redis.port=" + redis.server().port())) {
            assertThat(context.containsBean(FallbackRedis.BEAN_NAME)).isFalse();
            assertThat(context.containsBean("demoRunner")).isFalse();
            StockService stock = context.getBean(StockService.class);
            stock.restock("no-fallback", 1);
            assertThat(stock.book("no-fallback")).isEqualTo(BookingResult.BOOKED);
            assertThat(output)
                    .contains("Using the Redis at localhost:" + redis.server().port());
        }
    }
}
