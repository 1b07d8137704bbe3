package dev.distlock.core.testing;

import dev.distlock.testsupport.RedisServer;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Redis MONITOR on a plain socket (Lettuce has no MONITOR): every command the server runs, the
 * commands Lua scripts run included, which MONITOR marks {@code [<db> lua]}. Lets a test see each
 * key a script reads as well as each key it writes.
 */
public final class RedisMonitor implements AutoCloseable {

    private static final Pattern QUOTED = Pattern.compile("\"((?:[^\"\\\\]|\\\\.)*)\"");

    private final Socket socket;
    private final BufferedReader in;

    private RedisMonitor(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    }

    /** Connects and returns once Redis confirmed MONITOR, so every later command is seen. */
    public static RedisMonitor start(RedisServer server) throws IOException {
        Socket socket = new Socket(server.host(), server.port());
        socket.setSoTimeout(10_000); // a read that waits longer fails the test instead of hanging it
        RedisMonitor monitor = new RedisMonitor(socket);
        socket.getOutputStream().write("*1\r\n$7\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
        socket.getOutputStream().flush();
        String reply = monitor.in.readLine();
        if (!"+OK".equals(reply)) {
            monitor.close();
            throw new IOException("MONITOR refused: " + reply);
        }
        return monitor;
    }

    /**
     * One command Redis ran: its name and arguments, whether a Lua script ran it, and where it came
     * from ({@code lua}, or the client connection's address).
     */
    public record Command(boolean fromScript, List<String> words, String source) {}

    /**
     * The commands Redis ran, read up to and including the first whose text contains {@code marker}
     * (send one, e.g. ECHO marker, after the commands to be seen, or wait for a command to come).
     */
    public List<Command> commandsUntil(String marker) throws IOException {
        List<Command> commands = new ArrayList<>();
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            int source = line.indexOf(" [");
            int end = line.indexOf("] ", source);
            if (source >= 0 && end > source) {
                String from = line.substring(line.lastIndexOf(' ', end - 1) + 1, end);
                commands.add(new Command(from.equals("lua"), arguments(line.substring(end + 2)), from));
            }
            if (line.contains(marker)) {
                return commands;
            }
        }
        throw new IOException("MONITOR connection closed before " + marker + " was seen");
    }

    private static List<String> arguments(String text) {
        List<String> args = new ArrayList<>();
        Matcher m = QUOTED.matcher(text);
        while (m.find()) {
            args.add(m.group(1).replace("\\\"", "\"").replace("\\\\", "\\"));
        }
        return args;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
