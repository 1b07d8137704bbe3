package dev.distlock.testsupport;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A tiny RESP client for test set-up and probes: one command per connection, without depending on a Redis
 * client library ({@link RedisServer#command}, {@link RedisServer#query}).
 */
final class Resp {

    private Resp() {}

    /** The reply's first line, or a bulk string's first line in place of its length header. */
    static String command(String host, int port, String... args) {
        return send(host, port, args, in -> {
            String line = readLine(in);
            return line.startsWith("$") && !line.equals("$-1") ? readLine(in) : line;
        });
    }

    /** The whole reply as text: a bulk string in full, an array's elements one per line (nested ones flattened). */
    static String query(String host, int port, String... args) {
        return send(host, port, args, in -> {
            StringBuilder sb = new StringBuilder();
            readReply(in, sb);
            return sb.toString();
        });
    }

    private interface Reader {
        String read(InputStream in) throws IOException;
    }

    private static String send(String host, int port, String[] args, Reader reader) {
        try (Socket socket = new Socket(host, port)) {
            socket.setSoTimeout(5000);
            OutputStream out = socket.getOutputStream();
            out.write(encode(args));
            out.flush();
            return reader.read(new BufferedInputStream(socket.getInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException("Redis on port " + port + " did not answer " + String.join(" ", args), e);
        }
    }

    private static byte[] encode(String... args) {
        ByteArrayOutputStream req = new ByteArrayOutputStream();
        req.writeBytes(("*" + args.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        for (String a : args) {
            byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
            req.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.UTF_8));
            req.writeBytes(bytes);
            req.writeBytes("\r\n".getBytes(StandardCharsets.UTF_8));
        }
        return req.toByteArray();
    }

    private static void readReply(InputStream in, StringBuilder sb) throws IOException {
        String line = readLine(in);
        if (line.isEmpty()) {
            throw new IOException("empty reply");
        }
        switch (line.charAt(0)) {
            case '$' -> {
                int len = Integer.parseInt(line.substring(1));
                if (len < 0) {
                    sb.append("(nil)");
                    return;
                }
                byte[] data = in.readNBytes(len + 2);
                sb.append(new String(data, 0, len, StandardCharsets.UTF_8));
            }
            case '*' -> {
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < n; i++) {
                    if (i > 0) {
                        sb.append('\n');
                    }
                    readReply(in, sb);
                }
            }
            default -> sb.append(line);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\r') {
                in.read();
                break;
            }
            sb.append((char) c);
        }
        return sb.toString();
    }
}
