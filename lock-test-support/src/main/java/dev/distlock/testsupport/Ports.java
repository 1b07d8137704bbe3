package dev.distlock.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A port on 127.0.0.1 where nothing listens, for tests of what an application does when Redis is not
 * there. {@link RedisServer#freePort()} is no such port: it is free only when asked, and on a busy host
 * with several test JVMs another test's server may take it a moment later (the application then connects
 * to a stranger). The ports given here lie below the range the kernel hands out for port 0, from which
 * every server these tests start takes its port (Cluster bus ports lie 10,000 above those), so no test
 * server can ever listen there; each is checked closed when asked.
 */
public final class Ports {

    private static final int FALLBACK_EPHEMERAL_LOW = 32768;

    private Ports() {}

    /** A port below the kernel's ephemeral range where a connection is refused now. */
    public static int closed() {
        int below = ephemeralLow();
        // spread the callers over the range, so that one stranger listening somewhere costs one probe
        int start = below - 1 - (int) (ProcessHandle.current().pid() % 1000);
        for (int port = start; port > 1024; port -= 7) {
            if (refused(port)) {
                return port;
            }
        }
        throw new IllegalStateException("every probed port below " + below + " accepted a connection");
    }

    private static boolean refused(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1_000);
            return false;
        } catch (ConnectException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static int ephemeralLow() {
        // read as a stream: a /proc file reports size 0, and Files.readString reads only part of it
        try (InputStream in = Files.newInputStream(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
            String range = new String(in.readAllBytes(), StandardCharsets.US_ASCII).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return FALLBACK_EPHEMERAL_LOW;
        }
    }
}
