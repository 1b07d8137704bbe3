package dev.distlock.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@link ReplyRewrite} over every way a stream can be cut into chunks. */
class ReplyRewriteTest {

    private static final String REPLY = "$39\r\n# Server\r\nredis_version:7.0.15\r\nos:Linux\r\n\r\n+OK\r\n";

    @Test
    void replacesTheStringWhereverTheChunksAreCut() {
        String expected = REPLY.replace("redis_version:7.", "redis_version:6.");
        for (int cut = 0; cut <= REPLY.length(); cut++) {
            for (int second = cut; second <= REPLY.length(); second++) {
                ReplyRewrite rewrite = new ReplyRewrite("redis_version:7.", "redis_version:6.");
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                out.writeBytes(rewrite.apply(bytes(REPLY.substring(0, cut))));
                out.writeBytes(rewrite.apply(bytes(REPLY.substring(cut, second))));
                out.writeBytes(rewrite.apply(bytes(REPLY.substring(second))));
                out.writeBytes(rewrite.rest());
                assertThat(out.toString(StandardCharsets.UTF_8))
                        .as("cut at %d and %d", cut, second)
                        .isEqualTo(expected);
            }
        }
    }

    @Test
    void aCompleteReplyIsNeverKeptBack() {
        ReplyRewrite rewrite = new ReplyRewrite("redis_version:7.", "redis_version:6.");
        assertThat(new String(rewrite.apply(bytes("+r\r\n")), StandardCharsets.UTF_8))
                .isEqualTo("+r\r\n");
        // a chunk that stops inside a reply, on what may begin a match, waits for the next chunk
        assertThat(rewrite.apply(bytes("$18\r\nredis_"))).asString().isEqualTo("$18\r\n");
        assertThat(rewrite.apply(bytes("version:7.0\r\n"))).asString().isEqualTo("redis_version:6.0\r\n");
        assertThat(rewrite.rest()).isEmpty();
    }

    @Test
    void refusesStringsThatWouldBreakTheProtocol() {
        assertThatThrownBy(() -> new ReplyRewrite("7.0", "6.2.1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("same length");
        assertThatThrownBy(() -> new ReplyRewrite("", "")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new ReplyRewrite("\r\n+", "\r\n-"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CR or LF");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
