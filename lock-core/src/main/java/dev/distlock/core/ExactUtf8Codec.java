package dev.distlock.core;

import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.codec.ToByteBufEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.nio.ByteBuffer;

/**
 * UTF-8 strings, written straight into the command's buffer. Lettuce's UTF-8 {@link StringCodec} only
 * estimates the encoded size of a non-ASCII charset, so it encodes every key and argument into a pooled
 * buffer of its own first and copies it over: a dozen buffer allocations per script call, each one
 * sampled by Netty's leak detector. The exact UTF-8 length of a string is cheap to count, and with an
 * exact size Lettuce writes the string in place. The bytes on the wire are the same as
 * {@code StringCodec.UTF8}'s (an unpaired surrogate becomes {@code '?'} in both).
 */
final class ExactUtf8Codec implements RedisCodec<String, String>, ToByteBufEncoder<String, String> {

    static final ExactUtf8Codec INSTANCE = new ExactUtf8Codec();

    private ExactUtf8Codec() {}

    @Override
    public boolean isEstimateExact() {
        return true;
    }

    @Override
    public int estimateSize(Object keyOrValue) {
        return keyOrValue instanceof CharSequence text ? ByteBufUtil.utf8Bytes(text) : 0;
    }

    @Override
    public void encodeKey(String key, ByteBuf target) {
        write(key, target);
    }

    @Override
    public void encodeValue(String value, ByteBuf target) {
        write(value, target);
    }

    private static void write(String text, ByteBuf target) {
        if (text != null) {
            ByteBufUtil.writeUtf8(target, text);
        }
    }

    @Override
    public String decodeKey(ByteBuffer bytes) {
        return StringCodec.UTF8.decodeKey(bytes);
    }

    @Override
    public String decodeValue(ByteBuffer bytes) {
        return StringCodec.UTF8.decodeValue(bytes);
    }

    @Override
    public ByteBuffer encodeKey(String key) {
        return StringCodec.UTF8.encodeKey(key);
    }

    @Override
    public ByteBuffer encodeValue(String value) {
        return StringCodec.UTF8.encodeValue(value);
    }
}
