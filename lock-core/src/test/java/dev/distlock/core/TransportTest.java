package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.resource.EpollProvider;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** With Netty's native epoll transport on the classpath (an opt-in for users; the tests have it), Lettuce uses it. */
class TransportTest {

    @Test
    void lettuceUsesNativeEpollOnLinuxX86() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        assumeTrue(
                os.contains("linux") && (arch.equals("amd64") || arch.equals("x86_64")),
                "the bundled native transport is for Linux x86-64 only; elsewhere Lettuce uses NIO");
        assertThat(EpollProvider.isAvailable())
                .as("Lettuce sees the native epoll transport")
                .isTrue();
    }
}
