package dev.distlock.core.internal.redis;

import io.lettuce.core.codec.StringCodec;
import io.netty.buffer.ByteBufUtil;
import java.nio.charset.StandardCharsets;

/**
 * Lettuce's UTF-8 {@link StringCodec}, telling Lettuce the exact encoded size. The plain codec only
 * estimates the size for a non-ASCII charset, so Lettuce encodes every key and argument into a pooled
 * buffer of its own first and copies it over: a dozen buffer allocations per script call, each one
 * sampled by Netty's leak detector. The exact UTF-8 length of a string is cheap to count, and with an
 * exact size Lettuce has the codec write the string in place. Encoding and decoding are
 * {@code StringCodec}'s own, so the bytes on the wire are unchanged.
 */
public final class ExactUtf8Codec extends StringCodec {

    public static final ExactUtf8Codec INSTANCE = new ExactUtf8Codec();

    private ExactUtf8Codec() {
        super(StandardCharsets.UTF_8);
    }

    @Override
    public boolean isEstimateExact() {
        return true;
    }

    /** The number of bytes {@code StringCodec} writes for it ({@code ByteBufUtil.writeUtf8}). */
    @Override
    public int estimateSize(Object keyOrValue) {
        return keyOrValue instanceof CharSequence text ? ByteBufUtil.utf8Bytes(text) : 0;
    }
}
