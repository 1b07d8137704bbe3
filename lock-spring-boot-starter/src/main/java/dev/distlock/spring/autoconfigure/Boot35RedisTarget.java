package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.autoconfigure.RedisTarget.Access;
import dev.distlock.spring.autoconfigure.RedisTarget.Node;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * {@link RedisTarget} from Spring Boot 3.5's {@link RedisConnectionDetails}, read as Spring Boot's own
 * Redis connection configuration reads it: Sentinel over Cluster over standalone, TLS with the bundle
 * of the topology in use. Loaded only on Boot 3.5 (compiled against its type, which Boot 4 renamed).
 */
final class Boot35RedisTarget {

    private Boot35RedisTarget() {}

    /**
     * The target of {@code details}; {@code sslByProperties} when spring.data.redis.ssl.enabled or a
     * rediss:// url asks for TLS, as they do for Spring Boot's own client.
     */
    static RedisTarget of(RedisConnectionDetails details, boolean sslByProperties) {
        RedisConnectionDetails.Sentinel sentinel = details.getSentinel();
        if (sentinel != null) {
            return RedisTarget.sentinel(
                    nodes(sentinel.getNodes()),
                    sentinel.getDatabase(),
                    new RedisTarget.Sentinel(sentinel.getMaster(), sentinel.getUsername(), sentinel.getPassword()),
                    access(details, sentinel.getSslBundle(), sslByProperties));
        }
        RedisConnectionDetails.Cluster cluster = details.getCluster();
        if (cluster != null) {
            return RedisTarget.cluster(
                    nodes(cluster.getNodes()), access(details, cluster.getSslBundle(), sslByProperties));
        }
        RedisConnectionDetails.Standalone standalone = details.getStandalone();
        return RedisTarget.standalone(
                new Node(standalone.getHost(), standalone.getPort()),
                standalone.getDatabase(),
                access(details, standalone.getSslBundle(), sslByProperties));
    }

    private static Access access(RedisConnectionDetails details, @Nullable SslBundle bundle, boolean sslByProperties) {
        return new Access(
                details.getUsername(),
                details.getPassword(),
                bundle != null || sslByProperties,
                bundle,
                "Spring Boot's RedisConnectionDetails");
    }

    private static List<Node> nodes(List<RedisConnectionDetails.Node> nodes) {
        return nodes.stream().map(n -> new Node(n.host(), n.port())).toList();
    }
}
