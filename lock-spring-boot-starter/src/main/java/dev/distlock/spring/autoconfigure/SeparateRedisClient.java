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
 * timeouts, client name, sentinel, cluster) read the way Spring Boot reads them (sentinel over cluster
 * over url or host; the url's credentials and database win over username, password and database), so
 * the locks reach the same Redis over one more connection. Idle, and never connected, when the factory
 * is Lettuce.
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
            client = switch (topology()) {
                case SENTINEL -> RedisClient.create(sentinelUri());
                case CLUSTER -> clusterClient();
                case STANDALONE -> RedisClient.create(standaloneUri());
            };
            configure(client);
            return LockClientSettings.connect(client, options);
        } catch (RuntimeException e) {
            destroy();
            if (e instanceof DistributedLockConfigurationException propertyError) {
                throw propertyError; // a distlock.* property, not the connection
            }
            throw new DistributedLockConfigurationException(
                    "Distributed locks could not open their own Lettuce connection to " + target
                            + " beside the application's "
                            + applicationFactory.getClass().getSimpleName() + ": "
                            + LockClientSettings.rootMessage(e),
                    "Check spring.data.redis.* (url or host/port, sentinel.*, cluster.*, username/password, ssl): the locks connect with them,"
                            + " whatever client the application uses",
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

    /** Spring Boot's topologies, in its order of precedence: sentinel.* over cluster.* over url or host/port. */
    private enum Topology {
        SENTINEL,
        CLUSTER,
        STANDALONE
    }

    private Topology topology() {
        if (string("sentinel.master") != null) {
            return Topology.SENTINEL;
        }
        return list("cluster.nodes").isEmpty() ? Topology.STANDALONE : Topology.CLUSTER;
    }

    private RedisClusterClient clusterClient() {
        List<RedisURI> nodes = new ArrayList<>();
        for (String node : list("cluster.nodes")) {
            nodes.add(common(RedisURI.builder(hostAndPort(node))));
        }
        return RedisClusterClient.create(nodes);
    }

    /** The url, else host, port and database. */
    private RedisURI standaloneUri() {
        RedisURI url = url();
        if (url != null) {
            return common(RedisURI.builder(url));
        }
        return common(RedisURI.builder(RedisURI.create(string("host", "localhost"), intValue("port", 6379)))
                .withDatabase(database()));
    }

    /** The master's name, the sentinels (with their own credentials), and the database of the url or database. */
    private RedisURI sentinelUri() {
        RedisURI.Builder builder = RedisURI.builder()
                .withSentinelMasterId(string("sentinel.master"))
                .withDatabase(database());
        String sentinelPassword = string("sentinel.password");
        for (String sentinel : list("sentinel.nodes")) {
            RedisURI.Builder sentinelUri = RedisURI.builder(hostAndPort(sentinel));
            if (sentinelPassword != null) {
                sentinelUri.withAuthentication(string("sentinel.username"), sentinelPassword);
            }
            builder.withSentinel(sentinelUri.build());
        }
        return common(builder);
    }

    /**
     * What every topology takes alike, as Spring Boot does: the credentials of the url when one is set
     * (else username/password), SSL, the command timeout and the client name.
     */
    private RedisURI common(RedisURI.Builder builder) {
        RedisURI url = url();
        if (url != null) {
            builder.withAuthentication(url);
        } else {
            String password = string("password");
            if (password != null) {
                builder.withAuthentication(string("username"), password);
            }
        }
        if (sslEnabled()) {
            builder.withSsl(true);
        }
        binder.bind(PREFIX + "timeout", Duration.class).ifBound(builder::withTimeout);
        String clientName = string("client-name");
        if (clientName != null) {
            builder.withClientName(clientName);
        }
        return builder.build();
    }

    private RedisURI url() {
        String url = string("url");
        return url == null ? null : RedisURI.create(url);
    }

    private int database() {
        RedisURI url = url();
        return url != null ? url.getDatabase() : intValue("database", 0);
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

    /** As Spring Boot: ssl.enabled, or a bundle named (which enables SSL unless ssl.enabled=false), or a rediss:// url. */
    private boolean sslEnabled() {
        boolean enabled = binder.bind(PREFIX + "ssl.enabled", Boolean.class).orElse(string("ssl.bundle") != null);
        RedisURI url = url();
        return enabled || (url != null && url.isSsl());
    }

    /** Where the locks connect, for the log and error messages; never the password. */
    private String describe() {
        RedisURI url = url();
        return switch (topology()) {
            case SENTINEL -> "sentinel master '" + string("sentinel.master") + "' via " + list("sentinel.nodes");
            case CLUSTER -> "cluster " + list("cluster.nodes");
            case STANDALONE ->
                url != null
                        ? url.getHost() + ":" + url.getPort()
                        : string("host", "localhost") + ":" + intValue("port", 6379);
        };
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

    private int intValue(String key, int fallback) {
        return binder.bind(PREFIX + key, Integer.class).orElse(fallback);
    }

    private List<String> list(String key) {
        return binder.bind(PREFIX + key, Bindable.listOf(String.class)).orElse(List.of());
    }
}
