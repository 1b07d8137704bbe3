package dev.distlock.core.internal.redis.script;

import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.CommandOutput;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The reply of a script that answers a flat array (no {@link LockScript} answers arrays inside arrays),
 * started afresh whenever an array begins.
 *
 * <p>Lettuce sends a command again after a reconnect with the output it had already begun to fill from
 * the reply the connection lost half-way (seen with Lettuce 6.6 and 7.5, the connection closed with a
 * FIN inside a reply; ScriptRunnerTest keeps a control). Lettuce's own array output then puts the new
 * reply inside what it kept of the old one: a reply {@code [1, token, 1]} cut after its first element
 * came back as {@code [1, [1], token, 1]}. In a flat reply an array can only begin where a reply
 * begins, so whatever came before it is the lost reply's, and is dropped.
 */
final class FlatArrayOutput extends CommandOutput<String, String, List<Object>> {

    FlatArrayOutput(RedisCodec<String, String> codec) {
        super(codec, new ArrayList<>());
    }

    @Override
    public void multi(int count) {
        output = new ArrayList<>(Math.max(count, 0));
    }

    @Override
    public void set(long integer) {
        output.add(integer);
    }

    @Override
    public void set(double number) {
        output.add(number);
    }

    @Override
    public void set(ByteBuffer bytes) {
        output.add(bytes == null ? null : codec.decodeValue(bytes));
    }

    @Override
    public void setSingle(ByteBuffer bytes) {
        output.add(bytes == null ? null : StringCodec.UTF8.decodeValue(bytes));
    }
}
