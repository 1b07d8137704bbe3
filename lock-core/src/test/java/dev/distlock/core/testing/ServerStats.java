package dev.distlock.core.testing;

import dev.distlock.testsupport.RedisServer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What a Redis server says it ran and who listens on it, from its own counters. */
public final class ServerStats {

    private ServerStats() {}

    /** How often {@code server} ran {@code command} (INFO commandstats; a script's commands included). */
    public static long calls(RedisServer server, String command) {
        Matcher m =
                Pattern.compile("cmdstat_" + command + ":calls=(\\d+)").matcher(server.query("INFO", "commandstats"));
        return m.find() ? Long.parseLong(m.group(1)) : 0;
    }

    /** Scripts {@code server} ran: its EVALSHA and EVAL calls. */
    public static long scriptRuns(RedisServer server) {
        return calls(server, "evalsha") + calls(server, "eval");
    }

    /** Subscribers of {@code channel} as {@code PUBSUB <kind>} counts them: NUMSUB (SUBSCRIBE) or SHARDNUMSUB. */
    public static long subscribers(RedisServer server, String kind, String channel) {
        // *2\r\n$<n>\r\n<channel>\r\n:<count>\r\n
        String reply = server.query("PUBSUB", kind, channel);
        return Long.parseLong(reply.substring(reply.lastIndexOf(':') + 1).trim());
    }
}
