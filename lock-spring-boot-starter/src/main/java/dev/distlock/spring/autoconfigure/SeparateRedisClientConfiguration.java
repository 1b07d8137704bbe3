package dev.distlock.spring.autoconfigure;

import dev.distlock.spring.autoconfigure.SeparateRedisClient.ConnectionDetailsTarget;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;

/**
 * The locks' own Lettuce client for a factory that is not Lettuce ({@link SeparateRedisClient}), and
 * the reader of Spring Boot's Redis connection details it connects with, by their name on the Boot
 * line at hand ({@code DataRedisConnectionDetails} on 4.x, {@code RedisConnectionDetails} on 3.5).
 */
@Configuration(proxyBeanMethods = false)
class SeparateRedisClientConfiguration {

    @Bean
    SeparateRedisClient distributedLockSeparateRedisClient(
            Environment environment,
            ObjectProvider<SslBundles> sslBundles,
            ObjectProvider<ConnectionDetailsTarget> connectionDetails) {
        return new SeparateRedisClient(environment, sslBundles, connectionDetails);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails")
    static class Boot4ConnectionDetails {
        @Bean
        ConnectionDetailsTarget distributedLockConnectionDetailsTarget(
                ObjectProvider<org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails> details) {
            return ssl -> {
                org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails found =
                        details.getIfAvailable();
                return found == null ? null : Boot4RedisTarget.of(found, ssl);
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails")
    static class Boot35ConnectionDetails {
        @Bean
        ConnectionDetailsTarget distributedLockConnectionDetailsTarget(
                ObjectProvider<org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails> details) {
            return ssl -> {
                org.springframework.boot.autoconfigure.data.redis.RedisConnectionDetails found =
                        details.getIfAvailable();
                return found == null ? null : Boot35RedisTarget.of(found, ssl);
            };
        }
    }
}
