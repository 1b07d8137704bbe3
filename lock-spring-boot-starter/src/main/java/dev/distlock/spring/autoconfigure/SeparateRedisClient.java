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
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * The locks' own Lettuce client, for an application whose {@link RedisConnectionFactory} is not
 * Lettuce (Jedis, or Redisson's starter, which replaces the factory), so the locks reach the same
 * Redis over one more connection. Where it connects comes from Spring Boot's Redis connection-details
 * bean, as for Spring Boot's own clients: the one Boot makes from {@code spring.data.redis.*}, or one
 * that Testcontainers' {@code @ServiceConnection}, Docker Compose support or the application
 * registers. Without such a bean (Spring Boot's Redis auto-configuration left out) it reads
 * {@code spring.data.redis.*} itself ({@link PropertiesRedisTarget}). The timeouts and the client
 * name come from {@code spring.data.redis.*} either way, as for Spring Boot's clients. Idle, and never
 * connected, when the factory is Lettuce.
 */
final class SeparateRedisClient implements DisposableBean {

    private static final Log log = LogFactory.getLog(SeparateRedisClient.class);
    private static final String PREFIX = PropertiesRedisTarget.PREFIX;

    /** Spring Boot's Redis connection details as a {@link RedisTarget}, on the Boot line at hand. */
    @FunctionalInterface
    interface ConnectionDetailsTarget {
        /** The details' target, or null when the application has no connection-details bean. */
        @Nullable
        RedisTarget read(boolean sslByProperties);
    }

    private final Binder binder;
    private final ObjectProvider<SslBundles> sslBundles;
    private final ObjectProvider<ConnectionDetailsTarget> connectionDetails;
    private volatile AbstractRedisClient client;

    SeparateRedisClient(
            Environment environment,
            ObjectProvider<SslBundles> sslBundles,
            ObjectProvider<ConnectionDetailsTarget> connectionDetails) {
        this.binder = Binder.get(environment);
        this.sslBundles = sslBundles;
        this.connectionDetails = connectionDetails;
    }

    /** Connects a lock client over a new Lettuce client; says once, in the log, that it does and where. */
    LockClient connect(RedisConnectionFactory applicationFactory, LockClientOptions options) {
        String target = "spring.data.redis.*";
        try {
            RedisTarget redis = target();
            target = redis.describe();
            log.info("The application's RedisConnectionFactory is "
                    + applicationFactory.getClass().getName()
                    + ", not Lettuce: distributed locks open their own Lettuce connection to " + target
                    + " (from " + redis.access().source() + ")");
            client = switch (redis.topology()) {
                case SENTINEL -> RedisClient.create(sentinelUri(redis));
                case CLUSTER ->
                    RedisClusterClient.create(redis.nodes().stream()
                            .map(node -> uri(RedisURI.builder(RedisURI.create(node.host(), node.port())), redis))
                            .toList());
                case STANDALONE ->
                    RedisClient.create(uri(
                            RedisURI.builder(RedisURI.create(
                                            redis.nodes().get(0).host(),
                                            redis.nodes().get(0).port()))
                                    .withDatabase(redis.database()),
                            redis));
            };
            configure(client, redis.access().sslBundle());
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
                    "Check spring.data.redis.* (url or host/port, sentinel.*, cluster.*, username/password, ssl), or the"
                            + " RedisConnectionDetails bean that replaces them (@ServiceConnection, Docker Compose):"
                            + " the locks connect with them, whatever client the application uses",
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

    private RedisTarget target() {
        boolean sslByProperties = PropertiesRedisTarget.sslByProperties(binder);
        ConnectionDetailsTarget details = connectionDetails.getIfAvailable();
        RedisTarget fromDetails = details == null ? null : details.read(sslByProperties);
        return fromDetails != null ? fromDetails : PropertiesRedisTarget.read(binder, sslBundles);
    }

    /** The master's name, the sentinels (with their own credentials), and the database. */
    private RedisURI sentinelUri(RedisTarget redis) {
        RedisURI.Builder builder = RedisURI.builder()
                .withSentinelMasterId(redis.sentinel().master())
                .withDatabase(redis.database());
        String sentinelPassword = redis.sentinel().password();
        for (RedisTarget.Node sentinel : redis.nodes()) {
            RedisURI.Builder sentinelUri = RedisURI.builder(RedisURI.create(sentinel.host(), sentinel.port()));
            authenticate(sentinelUri, redis.sentinel().username(), sentinelPassword);
            builder.withSentinel(sentinelUri.build());
        }
        return uri(builder, redis);
    }

    /** What every topology takes alike, as Spring Boot does: credentials, TLS, the command timeout, the client name. */
    private RedisURI uri(RedisURI.Builder builder, RedisTarget redis) {
        RedisTarget.Access access = redis.access();
        authenticate(builder, access.username(), access.password());
        if (access.ssl()) {
            builder.withSsl(true);
        }
        binder.bind(PREFIX + "timeout", Duration.class).ifBound(builder::withTimeout);
        String clientName = binder.bind(PREFIX + "client-name", String.class).orElse("");
        if (!clientName.isBlank()) {
            builder.withClientName(clientName);
        }
        return builder.build();
    }

    /** A password alone is Redis's default user (AUTH password); Lettuce refuses a null user name beside it. */
    private static void authenticate(RedisURI.Builder builder, @Nullable String username, @Nullable String password) {
        if (password != null && username != null) {
            builder.withAuthentication(username, password);
        } else if (password != null) {
            builder.withPassword(password.toCharArray());
        }
    }

    private void configure(AbstractRedisClient redisClient, @Nullable SslBundle bundle) {
        SocketOptions.Builder socket = SocketOptions.builder();
        binder.bind(PREFIX + "connect-timeout", Duration.class).ifBound(socket::connectTimeout);
        SslOptions ssl = bundle == null
                ? null
                : SslOptions.builder()
                        .jdkSslProvider()
                        .keyManager(bundle.getManagers().getKeyManagerFactory())
                        .trustManager(bundle.getManagers().getTrustManagerFactory())
                        .build();
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
}
