package dev.distlock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/**
 * A TCP relay on a free loopback port that forwards every byte to a target (usually a
 * {@link RedisServer}) and injects network faults on command. It does not parse what it carries.
 * Point the client under test at {@link #uri()} and watch the real server through a direct
 * connection.
 *
 * <p>Faults, each usable at any time and applying to every connection, open or opened later:
 * <ul>
 *   <li>{@link #holdReplies()}: bytes from the server are kept back (the requests still reach it), until
 *       {@link #releaseReplies()} delivers them in order, or {@link #drop} discards them with the connections;
 *       {@link #releaseReplyBytes(int)} delivers only the first bytes kept back (a reply cut part-way);</li>
 *   <li>{@link #delayReplies(Duration)}: every chunk from the server is delivered that long after it arrived;</li>
 *   <li>{@link #blackHole()}: nothing passes either way and nothing is closed, like a partition; what was
 *       sent meanwhile is delivered by {@link #heal()}, as TCP would retransmit it;</li>
 *   <li>{@link #drop(Drop)}: every open connection is closed on both sides, towards the client with a FIN
 *       (normal close) or an RST (SO_LINGER 0); bytes kept back are lost, and every fault is cleared first,
 *       so that the client's reconnections pass;</li>
 *   <li>{@link #heal()}: every fault cleared, everything kept back delivered;</li>
 *   <li>{@link #rewriteReplies(String, String)}: a string in the server's replies reaches the client as
 *       another, on connections opened afterwards (a server made to look like another version); not
 *       cleared by {@link #heal()}.</li>
 * </ul>
 *
 * <pre>{@code
 * try (FaultRelay relay = FaultRelay.to(redis.server())) {
 *     RedisClient client = RedisClient.create(relay.uri());
 *     relay.holdReplies();
 *     ... send a command, see its effect on the server directly ...
 *     relay.drop(FaultRelay.Drop.RST); // its reply is never delivered
 * }
 * }</pre>
 *
 * Plain blocking sockets: two threads per direction of each connection (one reads, one writes when
 * the faults let it), all daemons.
 */
public final class FaultRelay implements AutoCloseable {

    /** How {@link #drop(Drop)} closes the client's side of a connection. */
    public enum Drop {
        /** A normal close: the client reads end of stream. */
        FIN,
        /** SO_LINGER 0: the client gets "connection reset by peer". */
        RST
    }

    private final String targetHost;
    private final int targetPort;
    private final ServerSocket listener;
    private final List<RelayLink> links = new CopyOnWriteArrayList<>();
    /** The faults applied now; its monitor guards them and every pipe's queue, and the writers wait on it. */
    private final RelayFaults faults = new RelayFaults();

    private volatile boolean closed;

    private FaultRelay(String targetHost, int targetPort) {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        try {
            this.listener = new ServerSocket();
            listener.bind(new InetSocketAddress("127.0.0.1", 0));
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot open the relay's listening socket", e);
        }
        Thread acceptor = new Thread(this::acceptLoop, "fault-relay-accept-" + port());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** A relay forwarding to {@code server}. */
    public static FaultRelay to(RedisServer server) {
        return new FaultRelay(server.host(), server.port());
    }

    /** A relay forwarding to {@code host:port}. */
    public static FaultRelay to(String host, int port) {
        return new FaultRelay(host, port);
    }

    public int port() {
        return listener.getLocalPort();
    }

    public String host() {
        return "127.0.0.1";
    }

    /** {@code redis://127.0.0.1:<relay port>}. */
    public String uri() {
        return "redis://" + host() + ":" + port();
    }

    /** Keeps every byte from the server back from now on; requests still pass. */
    public void holdReplies() {
        synchronized (faults) {
            faults.holdingReplies = true;
            links.forEach(link -> link.passReplies = false);
            faults.notifyAll();
        }
    }

    /**
     * While replies are held, delivers what one connection kept back and lets its replies pass, the others
     * staying held: {@code n} counts the connections open now, oldest first. A client opens its
     * connections in a known order (a LockClient: commands, renewals, pub/sub), so a test can choose which
     * of two replies it reads first.
     */
    public void releaseRepliesOf(int n) {
        synchronized (faults) {
            links.get(n).passReplies = true;
            faults.notifyAll();
        }
    }

    /** Delivers what {@link #holdReplies()} kept back, in order, and lets replies pass again. */
    public void releaseReplies() {
        synchronized (faults) {
            faults.holdingReplies = false;
            faults.notifyAll();
        }
    }

    /**
     * While replies are held, delivers the first {@code bytes} bytes each connection keeps back from the
     * server and keeps the rest back: a reply cut part-way, as when a connection drops inside one (drop
     * it next). Returns once those bytes were written to the client's socket.
     *
     * @throws IllegalStateException when replies are not held, or the bytes were not written within 10 s
     */
    public void releaseReplyBytes(int bytes) throws InterruptedException {
        faults.releaseReplyBytes(bytes, links);
    }

    /**
     * On connections opened from now on, every {@code from} in the server's replies reaches the client as
     * {@code to}, of the same length in bytes so that RESP lengths stay right: for example
     * {@code "redis_version:7."} as {@code "redis_version:6."}, a Redis 7 that answers INFO as an older one.
     *
     * @throws IllegalArgumentException when the lengths differ, or {@code from} is empty or starts with CR or LF
     */
    public void rewriteReplies(String from, String to) {
        new ReplyRewrite(from, to); // checks the strings now, in the test's thread
        faults.replyRewrite = new String[] {from, to};
    }

    /**
     * Makes {@code server}, this relay's target, answer INFO as a Redis 6 on connections opened from now on (its
     * {@code redis_version} rewritten: {@link #rewriteReplies}), for what a client does with a server older than 7.
     */
    public void poseAsRedis6(RedisServer server) {
        String major = server.version().replaceAll("\\..*", "");
        rewriteReplies("redis_version:" + major + ".", "redis_version:6.");
    }

    /** Delivers every chunk from the server {@code delay} after it arrived ({@link Duration#ZERO}: at once). */
    public void delayReplies(Duration delay) {
        synchronized (faults) {
            faults.replyDelayNanos = delay.toNanos();
            faults.notifyAll();
        }
    }

    /** Passes nothing either way and closes nothing; new connections are accepted but carry nothing either. */
    public void blackHole() {
        synchronized (faults) {
            faults.blackHoled = true;
            faults.notifyAll();
        }
    }

    /** Clears every fault and delivers everything kept back, in order. */
    public void heal() {
        synchronized (faults) {
            faults.holdingReplies = false;
            faults.blackHoled = false;
            faults.replyDelayNanos = 0;
            faults.notifyAll();
        }
    }

    /**
     * Clears every fault, then closes every open connection on both sides: the client's side with a
     * FIN or an RST. Bytes still kept back are lost. Connections opened afterwards pass normally.
     */
    public void drop(Drop how) {
        drop(how, link -> true);
    }

    /**
     * As {@link #drop(Drop)}, but closes only the connections with replies kept back right now; the
     * others deliver what was kept back and carry on (a client's subscriptions stay, say, while the
     * connection its commands went over is lost).
     */
    public void dropHolding(Drop how) {
        drop(how, link -> link.toClient.pendingBytes() > 0);
    }

    /** Clears every fault and closes the connections {@code which} picks. */
    private void drop(Drop how, Predicate<RelayLink> which) {
        List<RelayLink> dropped = new ArrayList<>();
        synchronized (faults) {
            faults.holdingReplies = false;
            faults.blackHoled = false;
            faults.replyDelayNanos = 0;
            for (RelayLink link : links) {
                if (which.test(link)) {
                    // down before any writer runs again: nothing kept back can slip out between here and the close
                    link.down = true;
                    link.toClient.discard();
                    link.toServer.discard();
                    dropped.add(link);
                }
            }
            faults.notifyAll();
        }
        for (RelayLink link : dropped) {
            link.closeSockets(how);
        }
    }

    /** Connections open through the relay right now. */
    public int openConnections() {
        return links.size();
    }

    /** Bytes from the server kept back right now (held, delayed or black-holed). */
    public long pendingReplyBytes() {
        synchronized (faults) {
            return links.stream().mapToLong(l -> l.toClient.pendingBytes()).sum();
        }
    }

    /**
     * Bytes from clients kept back right now (black-holed): a request the client has written to its
     * socket and the server has not seen.
     */
    public long pendingRequestBytes() {
        synchronized (faults) {
            return links.stream().mapToLong(l -> l.toServer.pendingBytes()).sum();
        }
    }

    /** Stops listening and closes every connection (FIN). */
    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        drop(Drop.FIN);
    }

    @Override
    public String toString() {
        return "FaultRelay[" + port() + " -> " + targetHost + ":" + targetPort + "]";
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            try {
                Socket server = new Socket(targetHost, targetPort);
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                RelayLink link = new RelayLink(faults, client, server, links::remove);
                links.add(link);
                link.start("fault-relay-" + port() + "-" + client.getPort() + "-");
            } catch (IOException e) {
                RelayLink.closeQuietly(client); // the target is down: so is the relayed connection
            }
        }
    }
}
