package dev.distlock.testsupport;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Small helpers shared by the topology set-ups: parsing replies and polling until ready. */
final class Topologies {

    private Topologies() {}

    /** {@code key:value} lines of an INFO-style reply. */
    static Map<String, String> info(String reply) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String line : reply.split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                map.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return map;
    }

    /** A flat key/value array reply (one element per line), such as SENTINEL MASTER's. */
    static Map<String, String> pairs(String reply) {
        Map<String, String> map = new LinkedHashMap<>();
        String[] lines = reply.split("\n");
        for (int i = 0; i + 1 < lines.length; i += 2) {
            map.put(lines[i], lines[i + 1]);
        }
        return map;
    }

    /** Polls until {@code ready} holds; on timeout fails with the state {@code describe} reports. */
    static void await(String what, Duration timeout, BooleanSupplier ready, Supplier<String> describe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException lastError = null;
        while (System.nanoTime() < deadline) {
            try {
                if (ready.getAsBoolean()) {
                    return;
                }
                lastError = null;
            } catch (RuntimeException e) {
                lastError = e; // a node not answering yet counts as not ready
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("Interrupted while waiting for " + what, e);
            }
        }
        String state;
        try {
            state = describe.get();
        } catch (RuntimeException e) {
            state = "(state unavailable: " + e + ")";
        }
        throw new IllegalStateException(what + " not reached within " + timeout + "; " + state, lastError);
    }
}
