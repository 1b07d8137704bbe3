package dev.distlock.spring.autoconfigure;

import dev.distlock.core.LockClient;
import dev.distlock.core.LockClientOptions;
import dev.distlock.spring.DistributedLockConfigurationException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The locks' own Lettuce client, for an application whose {@link RedisConnectionFactory} is not
 * Lettuce (Jedis, or Redisson's starter, which replaces the factory): built from the same
 * {@code spring.data.redis.*} settings (url, host, port, database, username, password, ssl,
 * timeouts, client name, sentinel, cluster), so the locks reach the same Redis over one more
 * connection. Idle, and never connected, when the factory is Lettuce.
 */
final class SeparateRedisClient implements DisposableBean {

    private static final Log log = LogFactory.getLog(SeparateRedisClient.class);
    private static final String PREFIX = "spring.data.redis.";

    private final Binder binder;
    private final ObjectProvider<SslBundles> sslBundles;
    private volatile AbstractRedisClient client;

    SeparateRedisClient(Environment environment, ObjectProvider<SslBundles> sslBundles) {
        this.binder = Binder.get(environment);
        this.sslBundles = sslBundles;
    }

    /** Connects a lock client over a new Lettuce client; says once, in the log, that it does. */
    LockClient connect(RedisConnectionFactory applicationFactory, LockClientOptions options) {
        String target = describe();
        log.info("The application's RedisConnectionFactory is "
                + applicationFactory.getClass().getName()
                + ", not Lettuce: distributed locks open their own Lettuce connection to " + target
                + " (from spring.data.redis.*)");
        try {
            client = isCluster() ? clusterClient() : RedisClient.create(uri(null));
            configure(client);
            return LockClient.create(client, options);
        } catch (RuntimeException e) {
            destroy();
            throw new DistributedLockConfigurationException(
                    "Distributed locks could not open their own Lettuce connection to " + target
                            + " beside the application's "
                            + applicationFactory.getClass().getSimpleName() + ": "
                            + DistributedLockAutoConfiguration.rootMessage(e),
                    "Check spring.data.redis.* (url or host/port, sentinel.*, cluster.*, username/password, ssl): the locks connect with them,"
                            + " whatever client the application uses; or set distributed-lock.enabled=false",
                    e);
        }
    }

    /** Shuts the client down after the lock client has closed (the lock client bean depends on this one). */
    @Override
    public void destroy() {
        AbstractRedisClient created = client;
        client = null;
        if (created != null) {
            created.shutdown();
        }
    }

    private boolean isCluster() {
        return !list("cluster.nodes").isEmpty();
    }

    private RedisClusterClient clusterClient() {
        List<RedisURI> nodes = new ArrayList<>();
        for (String node : list("cluster.nodes")) {
            nodes.add(uri(node));
        }
        return RedisClusterClient.create(nodes);
    }

    /** One Redis URI from the settings; {@code node} (host:port) overrides host and port, as for a cluster node. */
    private RedisURI uri(String node) {
        String url = string("url");
        RedisURI.Builder builder;
        String master = string("sentinel.master");
        if (url != null && node == null) {
            builder = RedisURI.builder(RedisURI.create(url));
        } else if (master != null && node == null) {
            builder = RedisURI.builder().withSentinelMasterId(master);
            for (String sentinel : list("sentinel.nodes")) {
                RedisURI.Builder sentinelUri = RedisURI.builder(hostAndPort(sentinel));
                String sentinelPassword = string("sentinel.password");
                if (sentinelPassword != null) {
                    sentinelUri.withAuthentication(string("sentinel.username"), sentinelPassword);
                }
                builder.withSentinel(sentinelUri.build());
            }
        } else {
            builder = RedisURI.builder(
                    node != null
                            ? hostAndPort(node)
                            : RedisURI.create(
                                    string("host", "localhost"),
                                    binder.bind(PREFIX + "port", Integer.class).orElse(6379)));
        }
        if (url == null || node != null) {
            String password = string("password");
            if (password != null) {
                builder.withAuthentication(string("username"), password);
            }
            if (node == null) {
                builder.withDatabase(
                        binder.bind(PREFIX + "database", Integer.class).orElse(0));
            }
            if (sslEnabled()) {
                builder.withSsl(true);
            }
        }
        binder.bind(PREFIX + "timeout", Duration.class).ifBound(builder::withTimeout);
        String clientName = string("client-name");
        if (clientName != null) {
            builder.withClientName(clientName);
        }
        return builder.build();
    }

    private void configure(AbstractRedisClient redisClient) {
        SocketOptions.Builder socket = SocketOptions.builder();
        binder.bind(PREFIX + "connect-timeout", Duration.class).ifBound(socket::connectTimeout);
        String bundleName = string("ssl.bundle");
        SslOptions ssl = null;
        if (bundleName != null) {
            SslBundle bundle = sslBundles.getObject().getBundle(bundleName);
            ssl = SslOptions.builder()
                    .jdkSslProvider()
                    .keyManager(bundle.getManagers().getKeyManagerFactory())
                    .trustManager(bundle.getManagers().getTrustManagerFactory())
                    .build();
        }
        if (redisClient instanceof RedisClusterClient cluster) {
            ClusterClientOptions.Builder options =
                    ClusterClientOptions.builder().socketOptions(socket.build());
            if (ssl != null) {
                options.sslOptions(ssl);
            }
            cluster.setOptions(options.build());
        } else if (redisClient instanceof RedisClient standalone) {
            ClientOptions.Builder options = ClientOptions.builder().socketOptions(socket.build());
            if (ssl != null) {
                options.sslOptions(ssl);
            }
            standalone.setOptions(options.build());
        }
    }

    private boolean sslEnabled() {
        return binder.bind(PREFIX + "ssl.enabled", Boolean.class).orElse(false) || string("ssl.bundle") != null;
    }

    /** Where the locks connect, for the log and error messages; never the password. */
    private String describe() {
        if (isCluster()) {
            return "cluster " + list("cluster.nodes");
        }
        if (string("url") != null) {
            RedisURI uri = RedisURI.create(string("url"));
            return uri.getHost() + ":" + uri.getPort();
        }
        if (string("sentinel.master") != null) {
            return "sentinel master '" + string("sentinel.master") + "' via " + list("sentinel.nodes");
        }
        return string("host", "localhost") + ":"
                + binder.bind(PREFIX + "port", Integer.class).orElse(6379);
    }

    private static RedisURI hostAndPort(String node) {
        String trimmed = node.trim();
        int colon = trimmed.lastIndexOf(':');
        if (colon <= 0 || colon == trimmed.length() - 1) {
            throw new IllegalArgumentException("\"" + node + "\" is not host:port");
        }
        String host = trimmed.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return RedisURI.create(host, Integer.parseInt(trimmed.substring(colon + 1)));
    }

    private String string(String key) {
        return string(key, null);
    }

    private String string(String key, String fallback) {
        String value = binder.bind(PREFIX + key, String.class).orElse(null);
        return value == null || value.isBlank() ? fallback : value;
    }

    private List<String> list(String key) {
        return binder.bind(PREFIX + key, Bindable.listOf(String.class)).orElse(List.of());
    }
}
