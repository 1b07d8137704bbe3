package dev.distlock.core;

import dev.distlock.core.internal.redis.script.LockScript;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.ProtocolKeyword;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A lock script call as ScriptRunner sends it (EVALSHA or EVAL): the script, known by its SHA1 or its
 * text, and its KEYS and ARGV, read back from the command's arguments as they go on the wire.
 */
record ScriptCall(LockScript script, List<String> keys, List<String> args) {

    /** The call {@code args} make, or null when they are no EVALSHA or EVAL of one of {@code scripts}. */
    static @Nullable ScriptCall of(Map<String, LockScript> scripts, ProtocolKeyword type, CommandArgs<?, ?> args) {
        if (type != CommandType.EVALSHA && type != CommandType.EVAL) {
            return null;
        }
        List<String> words = words(args);
        LockScript script = scripts.get(words.get(0));
        if (script == null) {
            return null;
        }
        int keyCount = Integer.parseInt(words.get(1));
        return new ScriptCall(
                script,
                List.copyOf(words.subList(2, 2 + keyCount)),
                List.copyOf(words.subList(2 + keyCount, words.size())));
    }

    /** The arguments as RESP encodes them, each a bulk string {@code $<length>\r\n<bytes>\r\n}. */
    private static List<String> words(CommandArgs<?, ?> args) {
        ByteBuf buffer = Unpooled.buffer();
        try {
            args.encode(buffer);
            List<String> words = new ArrayList<>();
            while (buffer.isReadable()) {
                if (buffer.readByte() != '$') {
                    throw new IllegalStateException("not a bulk string: " + args);
                }
                int length = 0;
                for (byte b = buffer.readByte(); b != '\r'; b = buffer.readByte()) {
                    length = length * 10 + (b - '0');
                }
                buffer.skipBytes(1); // \n
                words.add(
                        buffer.readCharSequence(length, StandardCharsets.UTF_8).toString());
                buffer.skipBytes(2); // \r\n
            }
            return words;
        } finally {
            buffer.release();
        }
    }
}
