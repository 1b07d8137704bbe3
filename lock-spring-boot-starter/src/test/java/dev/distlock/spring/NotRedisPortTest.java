package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/**
 * spring.data.redis.port pointing at a server that is not Redis (a web server, say) fails start-up
 * naming the host:port and that it does not speak the Redis protocol, not Lettuce's decoder error.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NotRedisPortTest {

    private ServerSocket server;
    private Thread answering;

    /** Answers whatever it is sent as a web server would: with an HTTP 400 page, then closes. */
    @BeforeEach
    void startAWebServerLookalike() throws IOException {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        answering = new Thread(() -> {
            while (!server.isClosed()) {
                try (Socket socket = server.accept()) {
                    InputStream in = socket.getInputStream();
                    in.read(new byte[1024]);
                    OutputStream out = socket.getOutputStream();
                    out.write(("HTTP/1.1 400 Bad Request\r\nContent-Length: 29\r\n\r\n<html>bad request</html>\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                } catch (IOException e) {
                    // closed by the test, or the client hung up: serve the next one
                }
            }
        });
        answering.setDaemon(true);
        answering.start();
    }

    @AfterEach
    void stop() throws Exception {
        server.close();
        answering.join(TimeUnit.SECONDS.toMillis(10));
    }

    @Test
    void aPortThatDoesNotSpeakRedisFailsStartupNamingIt() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(BootLine.REDIS, DistributedLockAutoConfiguration.class))
                .withPropertyValues(
                        "spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + server.getLocalPort(),
                        "spring.data.redis.timeout=5s")
                .run(context -> {
                    assertThat(context).hasFailed();
                    FailureAnalysis analysis = AutoConfigurationTest.analyze(context.getStartupFailure());
                    assertThat(analysis.getDescription())
                            .contains("127.0.0.1:" + server.getLocalPort())
                            .contains("does not speak the Redis protocol")
                            .doesNotContain("decoding using null");
                    assertThat(analysis.getAction()).contains("spring.data.redis.host/port");
                });
    }
}
