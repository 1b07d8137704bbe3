package dev.distlock.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.lettuce.core.resource.EpollProvider;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/** lock-core ships Netty's native epoll transport so that Lettuce uses it where it can. */
class TransportTest {

    @Test
    void lettuceUsesNativeEpollOnLinuxX86() {
        String os = System.getProperty("os.name").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch").toLowerCase(Locale.ROOT);
        assumeTrue(os.contains("linux") && (arch.equals("amd64") || arch.equals("x86_64")),
                "the bundled native transport is for Linux x86-64 only; elsewhere Lettuce uses NIO");
        assertThat(EpollProvider.isAvailable()).as("Lettuce sees the native epoll transport").isTrue();
    }
}
