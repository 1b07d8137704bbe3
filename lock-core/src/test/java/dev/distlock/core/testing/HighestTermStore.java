package dev.distlock.core.testing;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import java.util.List;

/**
 * The resource leaders write to, outside the library: a Redis key that keeps the highest term it has
 * accepted, refusing a write that carries a lower one, and a list of every write as
 * {@code accepted|refused <term> <writer>}, in the order the store saw them.
 */
public final class HighestTermStore {

    private static final String WRITE = """
            local highest = tonumber(redis.call('GET', KEYS[1]) or '0')
            local term = tonumber(ARGV[1])
            if term < highest then
                redis.call('RPUSH', KEYS[2], 'refused ' .. ARGV[1] .. ' ' .. ARGV[2])
                return 0
            end
            redis.call('SET', KEYS[1], ARGV[1])
            redis.call('RPUSH', KEYS[2], 'accepted ' .. ARGV[1] .. ' ' .. ARGV[2])
            return 1
            """;

    /** One write as the store saw it. */
    public record Write(boolean accepted, long term, String writer) {
        static Write parse(String line) {
            String[] parts = line.split(" ");
            return new Write(parts[0].equals("accepted"), Long.parseLong(parts[1]), parts[2]);
        }
    }

    private final String key;

    public HighestTermStore(String key) {
        this.key = key;
    }

    public String key() {
        return key;
    }

    /** Writes stamped with {@code term}; whether the store accepted it. */
    public boolean write(RedisCommands<String, String> redis, long term, String writer) {
        Long accepted = redis.eval(
                WRITE, ScriptOutputType.INTEGER, new String[] {key, key + ":history"}, Long.toString(term), writer);
        return accepted == 1;
    }

    /** Every write, in the store's order. */
    public List<Write> history(RedisCommands<String, String> redis) {
        return redis.lrange(key + ":history", 0, -1).stream().map(Write::parse).toList();
    }
}
