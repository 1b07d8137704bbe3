package dev.distlock.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Each fault of {@link FaultRelay}, seen by a raw socket sending PING to a real Redis through it. */
class FaultRelayTest {

    private static final byte[] PING = "PING\r\n".getBytes(StandardCharsets.US_ASCII);
    private static RedisServer server;
    private FaultRelay relay;
    private Socket socket;

    @BeforeAll
    static void startRedis() {
        server = RedisServer.start();
    }

    @AfterAll
    static void stopRedis() {
        server.close();
    }

    @BeforeEach
    void connect() throws IOException {
        relay = FaultRelay.to(server);
        socket = new Socket(relay.host(), relay.port());
        socket.setSoTimeout(5000);
        assertThat(ping()).isEqualTo("+PONG");
    }

    @AfterEach
    void close() throws IOException {
        socket.close();
        relay.close();
    }

    @Test
    void heldRepliesAreDeliveredInOrderOnRelease() throws IOException {
        relay.holdReplies();
        send();
        send();
        await("both replies reached the relay")
                .atMost(Duration.ofSeconds(5))
                .until(() -> relay.pendingReplyBytes() == 14);
        assertNothingWithin(Duration.ofMillis(300));
        relay.releaseReplies();
        assertThat(readLine()).isEqualTo("+PONG");
        assertThat(readLine()).isEqualTo("+PONG");
    }

    @Test
    void dropWithFinEndsTheStreamAndLosesHeldReplies() throws IOException {
        relay.holdReplies();
        send();
        awaitHeld();
        relay.drop(FaultRelay.Drop.FIN);
        assertThat(socket.getInputStream().read())
                .as("end of stream, the held reply lost")
                .isEqualTo(-1);
        reconnectAndPing();
    }

    @Test
    void dropWithRstResetsTheConnection() throws IOException {
        relay.holdReplies();
        send();
        awaitHeld();
        relay.drop(FaultRelay.Drop.RST);
        assertThatThrownBy(() -> socket.getInputStream().read())
                .isInstanceOf(SocketException.class)
                .hasMessageContaining("reset");
        reconnectAndPing();
    }

    @Test
    void delayedRepliesArriveNoSoonerThanTheDelay() throws IOException {
        relay.delayReplies(Duration.ofMillis(500));
        long start = System.nanoTime();
        assertThat(ping()).isEqualTo("+PONG");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(500));
        relay.delayReplies(Duration.ZERO);
        assertThat(ping()).isEqualTo("+PONG");
    }

    @Test
    void blackHoleKeepsRequestsFromTheServerUntilHealed() throws IOException {
        relay.blackHole();
        send();
        await("the request reached the relay")
                .atMost(Duration.ofSeconds(5))
                .until(() -> relay.pendingRequestBytes() == PING.length);
        assertNothingWithin(Duration.ofMillis(300));
        assertThat(relay.pendingReplyBytes())
                .as("the request never reached Redis")
                .isZero();
        assertThat(relay.openConnections()).as("nothing closed").isEqualTo(1);
        relay.heal();
        assertThat(readLine()).isEqualTo("+PONG");
        assertThat(relay.pendingRequestBytes()).as("the request delivered").isZero();
    }

    @Test
    void releaseReplyBytesDeliversTheFirstBytesAndKeepsTheRestBack() throws Exception {
        relay.holdReplies();
        send();
        awaitHeld();
        relay.releaseReplyBytes(3);
        byte[] first = socket.getInputStream().readNBytes(3);
        assertThat(new String(first, StandardCharsets.US_ASCII)).isEqualTo("+PO");
        assertThat(relay.pendingReplyBytes())
                .as("the rest of \"+PONG\\r\\n\" kept back")
                .isEqualTo(4);
        assertNothingWithin(Duration.ofMillis(300));
        relay.releaseReplies();
        assertThat(readLine()).isEqualTo("NG");
    }

    @Test
    void releaseReplyBytesWithoutHeldRepliesSaysToHoldThemFirst() {
        assertThatThrownBy(() -> relay.releaseReplyBytes(3))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("call holdReplies() first");
    }

    private void reconnectAndPing() throws IOException {
        socket.close();
        socket = new Socket(relay.host(), relay.port());
        socket.setSoTimeout(5000);
        assertThat(ping())
                .as("a new connection passes: drop cleared the faults")
                .isEqualTo("+PONG");
    }

    private void awaitHeld() {
        await("reply reached the relay").atMost(Duration.ofSeconds(5)).until(() -> relay.pendingReplyBytes() > 0);
    }

    private void assertNothingWithin(Duration quiet) throws IOException {
        socket.setSoTimeout((int) quiet.toMillis());
        try {
            assertThatThrownBy(() -> socket.getInputStream().read()).isInstanceOf(SocketTimeoutException.class);
        } finally {
            socket.setSoTimeout(5000);
        }
    }

    @Test
    void rewrittenRepliesReachConnectionsOpenedAfterwards() throws IOException {
        relay.poseAsRedis6(server);
        try (Socket later = new Socket(relay.host(), relay.port())) {
            later.setSoTimeout(5000);
            later.getOutputStream().write("INFO server\r\n".getBytes(StandardCharsets.US_ASCII));
            later.getOutputStream().flush();
            String length = readLine(later.getInputStream());
            byte[] body = later.getInputStream().readNBytes(Integer.parseInt(length.substring(1)));
            assertThat(new String(body, StandardCharsets.US_ASCII))
                    .as("the server runs Redis %s: the relay rewrote its version", server.version())
                    .contains("redis_version:6.")
                    .doesNotContain("redis_version:" + server.version());
        }
        assertThat(ping()).as("a connection opened before is left as it was").isEqualTo("+PONG");
    }

    private String ping() throws IOException {
        send();
        return readLine();
    }

    private void send() throws IOException {
        socket.getOutputStream().write(PING);
        socket.getOutputStream().flush();
    }

    private String readLine() throws IOException {
        return readLine(socket.getInputStream());
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new IOException("end of stream after '" + line + "'");
            }
            if (c != '\r') {
                line.append((char) c);
            }
        }
        return line.toString();
    }
}
