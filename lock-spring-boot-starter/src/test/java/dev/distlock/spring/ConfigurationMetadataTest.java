package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The starter's jar carries what IDEs and Boot read without loading its classes: every property in the
 * configuration metadata, and the auto-configuration metadata Boot filters auto-configurations by.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ConfigurationMetadataTest {

    @Test
    void configurationMetadataListsTheHealthSwitchBesideTheProperties() throws Exception {
        String metadata = starterResource("META-INF/spring-configuration-metadata.json");
        assertThat(metadata)
                .contains("\"name\": \"management.health.distributedlock.enabled\"")
                .contains("\"name\": \"distlock.lease-time\"")
                .contains("\"name\": \"distlock.aop.order\"");
    }

    @Test
    void autoConfigurationMetadataIsGenerated() throws Exception {
        String metadata = starterResource("META-INF/spring-autoconfigure-metadata.properties");
        assertThat(metadata)
                .contains(DistributedLockAutoConfiguration.class.getName() + "=")
                .contains(DistributedLockAutoConfiguration.class.getName() + ".ConditionalOnClass=");
    }

    /** The starter's own copy of {@code path}: other jars on the test classpath may have one too. */
    private static String starterResource(String path) throws Exception {
        List<String> found = new ArrayList<>();
        for (URL url : Collections.list(
                ConfigurationMetadataTest.class.getClassLoader().getResources(path))) {
            try (InputStream in = url.openStream()) {
                String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                if (text.contains("dev.distlock") || text.contains("distlock.")) {
                    found.add(text);
                }
            }
        }
        assertThat(found).as("the starter's %s on the classpath", path).hasSize(1);
        return found.get(0);
    }
}
