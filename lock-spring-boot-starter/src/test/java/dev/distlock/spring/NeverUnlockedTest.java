package dev.distlock.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockDisabledAutoConfiguration;
import dev.distlock.testsupport.RedisExtension;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.PriorityOrdered;

/** A @DistributedLock method either runs locked or start-up fails (or, when locks are switched off, a WARN says so). */
@ExtendWith(OutputCaptureExtension.class)
class NeverUnlockedTest {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        BootLine.REDIS,
                        DistributedLockAutoConfiguration.class,
                        DistributedLockDisabledAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.port=" + redis.server().port());
    }

    private FailureAnalysis failure(ApplicationContextRunner runner) {
        FailureAnalysis[] seen = new FailureAnalysis[1];
        runner.run(context -> {
            assertThat(context).hasFailed();
            seen[0] = AutoConfigurationTest.analyze(context.getStartupFailure());
        });
        return seen[0];
    }

    @Test
    void privateFinalAndStaticMethodsFailStartupNamingEachMethodAndTheFix() {
        FailureAnalysis analysis = failure(runner().withBean(Unreachable.class));
        assertThat(analysis.getDescription())
                .contains("3 @DistributedLock method(s) would run without the lock")
                .contains("Unreachable.hidden() is private")
                .contains("Unreachable.sealed() is final")
                .contains("Unreachable.shared() is static");
        assertThat(analysis.getAction())
                .contains("Make @DistributedLock methods public")
                .contains("Remove final")
                .contains("instance methods of a Spring bean");
    }

    @Test
    void methodAJdkProxyCannotReachFailsStartup() {
        // Without Spring Boot's AOP auto-configuration the proxy creator makes interface-based proxies.
        FailureAnalysis analysis = failure(runner().withBean(Worker.class));
        assertThat(analysis.getDescription())
                .contains("Worker.work()")
                .contains("proxied through its interfaces [Runnable]");
        assertThat(analysis.getAction()).contains("spring.aop.proxy-target-class=true");
    }

    @Test
    void beanCreatedBeforeTheAdvisorFailsStartup() {
        FailureAnalysis analysis = failure(runner().withUserConfiguration(EarlyInfrastructure.class));
        assertThat(analysis.getDescription())
                .contains("EarlyBird.run()")
                .contains("bean 'earlyBird'")
                .contains("not proxied by the lock advisor");
        assertThat(analysis.getAction()).contains("BeanPostProcessor").contains("@Lazy");
    }

    @Test
    void keyVariableThatIsNotAParameterFailsStartupListingTheParameters() {
        FailureAnalysis analysis = failure(runner().withBean(Typo.class));
        assertThat(analysis.getDescription())
                .contains("Typo.pay(Long)")
                .contains("uses #ordrId")
                .contains("not a parameter of the method (its parameters: #orderId)");
        assertThat(analysis.getAction()).contains("#p0/#a0");
    }

    @Test
    void positionalVariableBeyondTheParametersFailsStartup() {
        FailureAnalysis analysis = failure(runner().withBean(PositionTooFar.class));
        assertThat(analysis.getDescription()).contains("uses #p1").contains("has 1 parameter(s)");
    }

    @Test
    void withoutParameterNamesStartupSaysSoAndPositionalVariablesStillWork(@TempDir Path dir) throws Exception {
        Class<?> noNames = compileWithoutParameterNames(
                dir, "NoNames", "@DistributedLock(key = \"'order:' + #orderId\") public void pay(Long orderId) { }");
        FailureAnalysis analysis =
                failure(runner().withClassLoader(noNames.getClassLoader()).withBean(noNames));
        assertThat(analysis.getDescription())
                .contains("NoNames.pay(Long)")
                .contains("uses #orderId")
                .contains("compiled without the -parameters flag");
        assertThat(analysis.getAction()).contains("Compile with -parameters").contains("#p0 or #a0");

        Class<?> positional = compileWithoutParameterNames(
                dir,
                "Positional",
                "public volatile boolean held; @DistributedLock(key = \"'order:' + #p0\") public void pay(Long orderId) {"
                        + " held = dev.distlock.spring.LockContext.currentToken() > 0; }");
        runner().withClassLoader(positional.getClassLoader())
                .withBean(positional)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Object bean = context.getBean(positional);
                    positional.getMethod("pay", Long.class).invoke(bean, 42L);
                    assertThat(positional
                                    .getField("held")
                                    .getBoolean(
                                            org.springframework.aop.framework.AopProxyUtils.getSingletonTarget(bean)))
                            .isTrue();
                });
    }

    @Test
    void switchedOffLocksLogAWarningCountingTheUnlockedMethods(CapturedOutput output) {
        runner().withPropertyValues("distlock.enabled=false")
                .withBean(Typo.class)
                .withBean(Fine.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(output)
                            .contains("WARN")
                            .contains("distlock.enabled=false: 2 @DistributedLock method(s) in 2 bean(s)"
                                    + " now run WITHOUT any lock");
                });
    }

    @Test
    void connectionErrorsDoNotRecommendSwitchingLocksOff() {
        FailureAnalysis analysis = failure(runner().withPropertyValues(
                        "spring.data.redis.port=" + dev.distlock.testsupport.Ports.closed(),
                        "spring.data.redis.timeout=2s")
                .withBean(Fine.class));
        assertThat(analysis.getDescription()).contains("could not connect to Redis");
        assertThat(analysis.getAction()).doesNotContain("enabled=false");
    }

    private static Class<?> compileWithoutParameterNames(Path dir, String name, String body) throws Exception {
        Path source = dir.resolve("gen/" + name + ".java");
        Files.createDirectories(source.getParent());
        Files.writeString(
                source,
                "package gen; import dev.distlock.spring.annotation.DistributedLock; public class " + name + " { "
                        + body + " }");
        String classpath = Path.of(DistributedLock.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI())
                + java.io.File.pathSeparator
                + Path.of(LockContext.class
                        .getProtectionDomain()
                        .getCodeSource()
                        .getLocation()
                        .toURI());
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        int status = compiler.run(
                null, null, null, "-classpath", classpath, "-d", dir.toString(), source.toString()); // no -parameters
        assertThat(status).as("javac exit status").isZero();
        URLClassLoader loader =
                new URLClassLoader(new URL[] {dir.toUri().toURL()}, NeverUnlockedTest.class.getClassLoader());
        return loader.loadClass("gen." + name);
    }

    public static class Unreachable {
        @DistributedLock(key = "a")
        private void hidden() {}

        @DistributedLock(key = "b")
        public final void sealed() {}

        @DistributedLock(key = "c")
        public static void shared() {}

        public void callsHidden() {
            hidden();
        }
    }

    public static class Worker implements Runnable {
        @Override
        public void run() {}

        @DistributedLock(key = "work")
        public void work() {}
    }

    public static class EarlyBird {
        @DistributedLock(key = "early")
        public void run() {}
    }

    @Configuration(proxyBeanMethods = false)
    static class EarlyInfrastructure {
        @Bean
        static EarlyBird earlyBird() {
            return new EarlyBird();
        }

        @Bean
        static PriorityPostProcessor needsEarlyBird(EarlyBird bird) {
            return new PriorityPostProcessor();
        }
    }

    static class PriorityPostProcessor implements BeanPostProcessor, PriorityOrdered {
        @Override
        public int getOrder() {
            return Ordered.HIGHEST_PRECEDENCE;
        }
    }

    public static class Typo {
        @DistributedLock(key = "'order:' + #ordrId")
        public void pay(Long orderId) {}
    }

    public static class PositionTooFar {
        @DistributedLock(key = "'order:' + #p1")
        public void pay(Long orderId) {}
    }

    public static class Fine {
        @DistributedLock(key = "fine")
        public void run() {}
    }
}
