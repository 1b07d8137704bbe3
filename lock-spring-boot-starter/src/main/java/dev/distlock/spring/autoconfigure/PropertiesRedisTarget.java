package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.autoconfigure.RedisTarget.Node;
import io.lettuce.core.RedisURI;
import java.net.URI;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/**
 * {@link RedisTarget} from {@code spring.data.redis.*}, read the way Spring Boot reads them (sentinel
 * over cluster over url or host; the url's credentials and database win over username, password and
 * database), for an application without a {@code RedisConnectionDetails} bean (one that left out
 * Spring Boot's Redis auto-configuration).
 */
final class PropertiesRedisTarget {

    static final String PREFIX = "spring.data.redis.";

    private final Binder binder;

    private PropertiesRedisTarget(Binder binder) {
        this.binder = binder;
    }

    static RedisTarget read(Binder binder, ObjectProvider<SslBundles> sslBundles) {
        return new PropertiesRedisTarget(binder).target(sslBundles);
    }

    private RedisTarget target(ObjectProvider<SslBundles> sslBundles) {
        RedisURI url = url();
        String[] userInfo = userInfo();
        String username = url != null ? userInfo[0] : string("username");
        String password = url != null ? userInfo[1] : string("password");
        int database = url != null ? url.getDatabase() : intValue("database", 0);
        String bundleName = string("ssl.bundle");
        SslBundle bundle = bundleName == null ? null : sslBundles.getObject().getBundle(bundleName);
        // As Spring Boot: ssl.enabled, or a bundle named (which enables SSL unless ssl.enabled=false), or a rediss://
        // url.
        boolean ssl = sslByProperties(binder);
        RedisTarget.Access access = new RedisTarget.Access(username, password, ssl, bundle, PREFIX + "*");
        String master = string("sentinel.master");
        if (master != null) {
            return RedisTarget.sentinel(
                    nodes("sentinel.nodes"),
                    database,
                    new RedisTarget.Sentinel(master, string("sentinel.username"), string("sentinel.password")),
                    access);
        }
        if (!list("cluster.nodes").isEmpty()) {
            return RedisTarget.cluster(nodes("cluster.nodes"), access);
        }
        Node node = url != null
                ? new Node(url.getHost(), url.getPort())
                : new Node(string("host", "localhost"), intValue("port", 6379));
        return RedisTarget.standalone(node, database, access);
    }

    /** Whether spring.data.redis.ssl.enabled (or a bundle named) or a rediss:// url asks for TLS. */
    static boolean sslByProperties(Binder binder) {
        PropertiesRedisTarget properties = new PropertiesRedisTarget(binder);
        RedisURI url = properties.url();
        boolean enabled =
                binder.bind(PREFIX + "ssl.enabled", Boolean.class).orElse(properties.string("ssl.bundle") != null);
        return enabled || (url != null && url.isSsl());
    }

    private @Nullable RedisURI url() {
        String url = string("url");
        return url == null ? null : RedisURI.create(url);
    }

    /** The url's user and password, as Spring Boot reads them: "user:password", ":password" or "password". */
    private @Nullable String[] userInfo() {
        String userInfo = URI.create(string("url")).getUserInfo();
        if (userInfo == null) {
            return new String[2];
        }
        int colon = userInfo.indexOf(':');
        return colon < 0
                ? new String[] {null, userInfo}
                : new String[] {colon == 0 ? null : userInfo.substring(0, colon), userInfo.substring(colon + 1)};
    }

    private List<Node> nodes(String key) {
        return list(key).stream().map(PropertiesRedisTarget::node).toList();
    }

    /** host:port, an IPv6 host in brackets or not. */
    static Node node(String node) {
        String trimmed = node.trim();
        int colon = trimmed.lastIndexOf(':');
        if (colon <= 0 || colon == trimmed.length() - 1) {
            throw new IllegalArgumentException("\"" + node + "\" is not host:port");
        }
        String host = trimmed.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new Node(host, Integer.parseInt(trimmed.substring(colon + 1)));
    }

    private @Nullable String string(String key) {
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
