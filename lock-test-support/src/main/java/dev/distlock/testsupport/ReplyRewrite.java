package dev.distlock.testsupport;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Replaces one byte string by another of the same length in a stream read in chunks ({@link
 * FaultRelay#rewriteReplies}), so that RESP lengths stay right. A chunk's tail that may begin a match is kept
 * back until the next chunk: RESP replies end in CRLF, so a complete reply never ends in such a tail and is
 * never kept back (the string must not start with CR or LF).
 */
final class ReplyRewrite {

    private static final byte[] NONE = new byte[0];

    private final byte[] from;
    private final byte[] to;
    private byte[] carried = NONE;

    ReplyRewrite(String from, String to) {
        this.from = from.getBytes(StandardCharsets.UTF_8);
        this.to = to.getBytes(StandardCharsets.UTF_8);
        if (this.from.length == 0 || this.from.length != this.to.length) {
            throw new IllegalArgumentException("rewriteReplies needs two non-empty strings of the same length in bytes,"
                    + " so that RESP lengths stay right: '" + from + "' and '" + to + "'");
        }
        if (this.from[0] == '\r' || this.from[0] == '\n') {
            throw new IllegalArgumentException("rewriteReplies cannot replace a string that starts with CR or LF: a"
                    + " complete reply would be kept back");
        }
    }

    /** What to deliver of {@code chunk} now, with the bytes kept back from the last one before it. */
    byte[] apply(byte[] chunk) {
        byte[] all = new byte[carried.length + chunk.length];
        System.arraycopy(carried, 0, all, 0, carried.length);
        System.arraycopy(chunk, 0, all, carried.length, chunk.length);
        int searchedTo = 0; // bytes before this are replaced or can no longer begin a match
        for (int i = 0; i + from.length <= all.length; i++) {
            if (Arrays.equals(all, i, i + from.length, from, 0, from.length)) {
                System.arraycopy(to, 0, all, i, to.length);
                i += from.length - 1;
                searchedTo = i + 1;
            }
        }
        int keep = 0;
        for (int k = Math.min(from.length - 1, all.length - searchedTo); k > 0 && keep == 0; k--) {
            if (Arrays.equals(all, all.length - k, all.length, from, 0, k)) {
                keep = k;
            }
        }
        carried = Arrays.copyOfRange(all, all.length - keep, all.length);
        return keep == 0 ? all : Arrays.copyOf(all, all.length - keep);
    }

    /** The bytes kept back, at the end of the stream. */
    byte[] rest() {
        byte[] rest = carried;
        carried = NONE;
        return rest;
    }
}
