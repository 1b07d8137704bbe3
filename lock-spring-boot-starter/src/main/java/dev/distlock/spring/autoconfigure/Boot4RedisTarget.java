package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.autoconfigure.RedisTarget.Access;
import dev.distlock.spring.autoconfigure.RedisTarget.Node;
import java.util.List;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * {@link RedisTarget} from Spring Boot 4.x's {@link DataRedisConnectionDetails}, read as Spring Boot's
 * own Redis connection configuration reads it: Sentinel over Cluster over standalone, TLS with the
 * details' bundle. Loaded only on Boot 4.x.
 */
final class Boot4RedisTarget {

    private Boot4RedisTarget() {}

    /**
     * The target of {@code details}; {@code sslByProperties} when spring.data.redis.ssl.enabled or a
     * rediss:// url asks for TLS, as they do for Spring Boot's own client.
     */
    static RedisTarget of(DataRedisConnectionDetails details, boolean sslByProperties) {
        SslBundle bundle = details.getSslBundle();
        Access access = new Access(
                details.getUsername(),
                details.getPassword(),
                bundle != null || sslByProperties,
                bundle,
                "Spring Boot's DataRedisConnectionDetails");
        DataRedisConnectionDetails.Sentinel sentinel = details.getSentinel();
        if (sentinel != null) {
            return RedisTarget.sentinel(
                    nodes(sentinel.getNodes()),
                    sentinel.getDatabase(),
                    new RedisTarget.Sentinel(sentinel.getMaster(), sentinel.getUsername(), sentinel.getPassword()),
                    access);
        }
        if (details.getCluster() != null) {
            return RedisTarget.cluster(nodes(details.getCluster().getNodes()), access);
        }
        DataRedisConnectionDetails.Standalone standalone = details.getStandalone();
        return RedisTarget.standalone(
                new Node(standalone.getHost(), standalone.getPort()), standalone.getDatabase(), access);
    }

    private static List<Node> nodes(List<DataRedisConnectionDetails.Node> nodes) {
        return nodes.stream().map(n -> new Node(n.host(), n.port())).toList();
    }
}
