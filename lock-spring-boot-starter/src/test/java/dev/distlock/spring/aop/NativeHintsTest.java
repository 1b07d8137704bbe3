package dev.distlock.spring.aop;

import static org.assertj.core.api.Assertions.assertThat;

import dev.distlock.spring.annotation.DistributedLock;
import dev.distlock.spring.autoconfigure.DistributedLockAutoConfiguration;
import dev.distlock.spring.autoconfigure.DistributedLockProperties;
import org.junit.jupiter.api.Test;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.ExecutableHint;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.AnnotationConfigUtils;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

/**
 * The hints Spring's AOT engine writes for a native image of an application that uses the starter:
 * the same processing as {@code spring-boot:process-aot}, on our auto-configuration and one bean with
 * {@code @DistributedLock} methods. No Redis is needed: AOT processing creates no lock client.
 */
// onMethod(..).invoke() is the form both Spring Framework 6.2 (Boot 3.5) and 7 have; 7 marks it for removal.
@SuppressWarnings("removal")
class NativeHintsTest {

    private static RuntimeHints processAheadOfTime() {
        GenericApplicationContext context = new GenericApplicationContext();
        AnnotationConfigUtils.registerAnnotationConfigProcessors(context);
        context.registerBean(DistributedLockAutoConfiguration.class);
        context.registerBean(Payments.class);
        context.registerBean(Refunds.class);
        DefaultGenerationContext generation = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get(NativeHintsTest.class)), new InMemoryGeneratedFiles());
        new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
        return generation.getRuntimeHints();
    }

    @Test
    void annotatedMethodsOfClassProxiedBeansAreKeptForReflection() {
        RuntimeHints hints = processAheadOfTime();
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethod(Payments.class, "pay")
                        .invoke())
                .accepts(hints);
    }

    /**
     * A bean behind a JDK proxy (it has an interface and the auto-proxy creator's default is interface
     * proxies): the proxy hint covers only the interface, so without {@code @Reflective} on the annotation
     * the implementation's method, where the annotation and the parameter names are read, would be missing.
     */
    @Test
    void annotatedMethodsOfInterfaceProxiedBeansAreKeptForReflection() {
        RuntimeHints hints = processAheadOfTime();
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethod(Refunds.class, "refund")
                        .invoke())
                .accepts(hints);
        assertThat(hints.reflection().getTypeHint(Refunds.class).methods())
                .as("only annotated methods")
                .extracting(ExecutableHint::getName)
                .containsExactly("refund");
    }

    @Test
    void theKeyExpressionRootAndTheBoundPropertiesAreReflectable() {
        RuntimeHints hints = processAheadOfTime();
        for (String getter : new String[] {"getMethodName", "getMethod", "getArgs", "getTarget", "getTargetClass"}) {
            assertThat(RuntimeHintsPredicates.reflection()
                            .onMethod(LockKeyResolver.Root.class, getter)
                            .invoke())
                    .as(getter)
                    .accepts(hints);
        }
        assertThat(RuntimeHintsPredicates.reflection().onType(DistributedLockProperties.class))
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethod(DistributedLockProperties.class, "setWaitTime")
                        .invoke())
                .accepts(hints);
        assertThat(RuntimeHintsPredicates.reflection()
                        .onMethod(dev.distlock.spring.autoconfigure.DistributedLockRedlockProperties.class, "setNodes")
                        .invoke())
                .accepts(hints);
    }

    public static class Payments {
        @DistributedLock(key = "'pay:' + #orderId")
        public String pay(long orderId) {
            return "paid " + orderId;
        }
    }

    public interface RefundApi {
        String refund(long orderId);

        String unlocked();
    }

    public static class Refunds implements RefundApi {
        @Override
        @DistributedLock(key = "'pay:' + #root.args[0]")
        public String refund(long orderId) {
            return "refunded " + orderId;
        }

        @Override
        public String unlocked() {
            return "no lock";
        }
    }
}
