package dev.distlock.sample;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.core.LockClient;
import dev.distlock.core.RedisLock;
import dev.distlock.spring.autoconfigure.DistributedLockProperties;
import dev.distlock.testsupport.IntegrationTest;
import dev.distlock.testsupport.RedisServer;
import io.lettuce.core.RedisURI;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.config.YamlPropertiesFactoryBean;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.io.ClassPathResource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.support.PathMatchingResourcePatternResolver;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** The sample as it runs, on a real Redis: the service under contention, the endpoints, the metrics. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT)
@DirtiesContext // its Redis is of this class only: no other class can reuse the application
@IntegrationTest
class SampleApplicationTest {

    /**
     * A real redis-server for this class. Not RedisExtension: JUnit would run its afterAll (stop
     * Redis) before Spring's (close the application), leaving the application reconnecting to a dead
     * server. This one is killed at JVM exit by RedisServer's shutdown hook, after @DirtiesContext
     * has closed the application.
     */
    static final RedisServer redis = RedisServer.start();

    /** A second lock client: stands for another instance of the service. */
    static LockClient otherInstance;

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        registry.add("spring.data.redis.port", () -> redis.port());
    }

    @BeforeAll
    static void connectOtherInstance() {
        otherInstance = LockClient.create(RedisURI.create(redis.uri()));
    }

    @AfterAll
    static void closeOtherInstance() {
        otherInstance.close();
    }

    @Autowired
    StockService stock;

    @Autowired
    DistributedLockProperties lockProperties;

    @LocalServerPort
    int port;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void concurrentBookingsSellExactlyTheStockAndNeverOversell() throws Exception {
        stock.restock("concurrent", 100);
        List<Future<BookingResult>> bookings = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            for (int i = 0; i < 300; i++) {
                bookings.add(pool.submit(() -> {
                    start.await();
                    return stock.book("concurrent");
                }));
            }
            start.countDown();
            int sold = 0;
            int soldOut = 0;
            for (Future<BookingResult> booking : bookings) {
                if (booking.get(30, TimeUnit.SECONDS) == BookingResult.BOOKED) {
                    sold++;
                } else {
                    soldOut++;
                }
            }
            long left = stock.stock("concurrent");
            long oversold = sold - (100 - left);
            assertThat(oversold)
                    .as("bookings for units that never left the stock")
                    .isZero();
            assertThat(sold).isEqualTo(100);
            assertThat(soldOut).isEqualTo(200);
            assertThat(left).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void endpointsRestockBookAndShowTheStock() throws Exception {
        assertThat(post("/stock/endpoints?quantity=2")).satisfies(ok("\"stock\":2"));
        assertThat(post("/bookings/endpoints")).satisfies(ok("\"result\":\"BOOKED\""));
        assertThat(post("/bookings/endpoints")).satisfies(ok("\"result\":\"BOOKED\""));

        HttpResponse<String> soldOut = post("/bookings/endpoints");
        assertThat(soldOut.statusCode()).isEqualTo(409);
        assertThat(soldOut.body()).contains("\"result\":\"SOLD_OUT\"");
        assertThat(get("/stock/endpoints")).satisfies(ok("\"stock\":0"));
    }

    @Test
    void crossedTransfersLockBothSkusTogetherWithoutDeadlockAndKeepEveryUnit() throws Exception {
        stock.restock("left", 50);
        stock.restock("right", 50);
        List<Future<StockService.Transfer>> transfers = new ArrayList<>();
        var pool = java.util.concurrent.Executors.newFixedThreadPool(8);
        try {
            for (int i = 0; i < 40; i++) {
                boolean leftToRight = i % 2 == 0;
                transfers.add(pool.submit(
                        () -> leftToRight ? stock.transfer("left", "right", 1) : stock.transfer("right", "left", 1)));
            }
            for (Future<StockService.Transfer> t : transfers) {
                assertThat(t.get(30, java.util.concurrent.TimeUnit.SECONDS).fencingTokens())
                        .containsOnlyKeys("stock:left", "stock:right");
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(stock.stock("left") + stock.stock("right"))
                .as("no unit lost or made up")
                .isEqualTo(100);
        assertThat(post("/stock/left/transfer/right?quantity=1")).satisfies(ok("\"moved\":1"));
    }

    @Test
    void badInputIsABadRequest() throws Exception {
        assertThat(post("/stock/bad-input?quantity=0").statusCode()).isEqualTo(400);
        assertThat(post("/bookings/not%20a%20sku").statusCode()).isEqualTo(400);
    }

    @Test
    void bookingAnswers409WithRetryAfterWhileAnotherInstanceHoldsTheSku() throws Exception {
        stock.restock("busy", 1);
        HttpResponse<String> response = whileHeldElsewhere("stock:busy", () -> post("/bookings/busy"));
        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(response.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(response.body()).contains("retry shortly").doesNotContain("stock:busy");
        assertThat(stock.stock("busy")).isEqualTo(1);
    }

    @Test
    void nightlyReportSkipsWhileAnotherInstanceRunsIt() throws Exception {
        stock.restock("reported", 7);
        HttpResponse<String> skipped = whileHeldElsewhere("NightlyReport.run", () -> post("/reports/nightly"));
        assertThat(skipped.statusCode()).isEqualTo(409);
        assertThat(skipped.body()).contains("Skipped");

        assertThat(post("/reports/nightly")).satisfies(ok("\"reported\":7"));
    }

    @Test
    void lockMetricsAreOnTheActuatorMetricsEndpoint() throws Exception {
        stock.restock("metered", 1);
        stock.book("metered");

        HttpResponse<String> acquire = get("/actuator/metrics/distributed.lock.acquire");
        assertThat(acquire).satisfies(ok("\"name\":\"distributed.lock.acquire\""));
        assertThat(acquire.body()).contains("StockService.book").doesNotContain("stock:metered");
        assertThat(get("/actuator/metrics/distributed.lock.held?tag=name:StockService.book"))
                .satisfies(ok("COUNT"));
        assertThat(get("/actuator/metrics/distributed.lock.active")).satisfies(ok("VALUE"));
    }

    /** Meters that bookings never record (a booking is far shorter than a renewal) answer anyway, at zero: built for dashboards before the first event. */
    @Test
    void lockMetersWithoutEventsAnswerFromStartUp() throws Exception {
        assertThat(get("/actuator/metrics/distributed.lock.renewals?tag=outcome:lost"))
                .satisfies(ok("COUNT"));
        assertThat(get("/actuator/metrics/distributed.lock.lost?tag=name:StockService.book"))
                .satisfies(ok("\"value\":0.0"));
        assertThat(get("/actuator/metrics/distributed.lock.acquire?tag=outcome:timeout&tag=name:StockService.book"))
                .satisfies(ok("COUNT"));
    }

    /** application.yml shows every distlock.* key at the starter's default, so it teaches nothing false. */
    @Test
    void applicationYmlListsEveryLockPropertyAtItsDefault() throws Exception {
        assertThat(lockProperties).usingRecursiveComparison().isEqualTo(new DistributedLockProperties());

        YamlPropertiesFactoryBean yaml = new YamlPropertiesFactoryBean();
        yaml.setResources(new ClassPathResource("application.yml"));
        Properties sampleYml = yaml.getObject();
        String ymlText = new ClassPathResource("application.yml").getContentAsString(StandardCharsets.UTF_8);
        for (String property : starterPropertyNames()) {
            String leaf = property.substring(property.lastIndexOf('.') + 1);
            assertThat(sampleYml.containsKey(property) || ymlText.contains("# " + leaf + ":"))
                    .as("application.yml shows %s", property)
                    .isTrue();
        }
    }

    /** The distlock.* names in the metadata the configuration processor generated for the starter. */
    private static List<String> starterPropertyNames() throws IOException {
        Pattern name = Pattern.compile("\"name\"\\s*:\\s*\"(distlock\\.[^\"]+)\"");
        List<String> names = new ArrayList<>();
        for (Resource metadata : new PathMatchingResourcePatternResolver()
                .getResources("classpath*:META-INF/spring-configuration-metadata.json")) {
            Matcher m = name.matcher(metadata.getContentAsString(StandardCharsets.UTF_8));
            while (m.find()) {
                names.add(m.group(1));
            }
        }
        // groups (distlock.aop) are listed too; keep the leaves
        List<String> leaves = names.stream()
                .filter(n -> names.stream().noneMatch(o -> o.startsWith(n + ".")))
                .distinct()
                .collect(Collectors.toList());
        assertThat(leaves).as("starter metadata on the classpath").contains("distlock.wait-time");
        return leaves;
    }

    private static Consumer<HttpResponse<String>> ok(String bodyPart) {
        return response -> {
            assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
            assertThat(response.body()).contains(bodyPart);
        };
    }

    private HttpResponse<String> post(String path) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(url(path))
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(url(path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private URI url(String path) {
        return URI.create("http://localhost:" + port + path);
    }

    interface Call<T> {
        T call() throws Exception;
    }

    /** Runs {@code whileHeld} while the other instance holds {@code key}. */
    static <T> T whileHeldElsewhere(String key, Call<T> whileHeld) throws Exception {
        RedisLock lock = otherInstance.getLock(key);
        assertThat(lock.tryLock(Duration.ofSeconds(5))).isTrue();
        try {
            return whileHeld.call();
        } finally {
            lock.unlock();
        }
    }
}
