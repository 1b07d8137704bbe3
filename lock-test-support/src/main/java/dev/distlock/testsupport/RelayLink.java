package dev.distlock.testsupport;

import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.util.function.Consumer;

/** One relayed connection: a client socket and its own socket to the target. */
final class RelayLink {
    final Socket client;
    final Socket server;
    final RelayPipe toServer;
    final RelayPipe toClient;
    /** Set under the faults' monitor; a writer delivers nothing once it is set. */
    volatile boolean down;
    /** Set under the faults' monitor: replies pass while the others are held ({@link FaultRelay#releaseRepliesOf}). */
    boolean passReplies;

    private final RelayFaults faults;
    /** Told when this link closes, so that the relay forgets it. */
    private final Consumer<RelayLink> closed;

    RelayLink(RelayFaults faults, Socket client, Socket server, Consumer<RelayLink> closed) {
        this.faults = faults;
        this.client = client;
        this.server = server;
        this.closed = closed;
        this.toServer = new RelayPipe(faults, this, client, server, false);
        this.toClient = new RelayPipe(faults, this, server, client, true);
    }

    /** Starts relaying; {@code name} begins the names of its threads. */
    void start(String name) {
        toServer.start(name + "c>s");
        toClient.start(name + "s>c");
    }

    /** Ends the link after one side closed or failed: the other side gets a FIN. */
    void close() {
        synchronized (faults) {
            down = true;
            faults.notifyAll(); // writers waiting for a fault to clear see the link is down
        }
        closeSockets(FaultRelay.Drop.FIN);
    }

    void closeSockets(FaultRelay.Drop how) {
        closed.accept(this);
        if (how == FaultRelay.Drop.RST) {
            try {
                client.setSoLinger(true, 0);
            } catch (SocketException ignored) {
                // already closed: nothing to reset
            }
        }
        closeQuietly(client);
        closeQuietly(server);
    }

    static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
