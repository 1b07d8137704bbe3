package dev.distlock.spring.aop;

import dev.distlock.spring.DistributedLockConfigurationException;
import dev.distlock.spring.execution.BeforeCommitCheck;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.aop.framework.Advised;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.core.annotation.MergedAnnotations.SearchStrategy;
import org.springframework.util.ClassUtils;

/**
 * Fails start-up when a {@code @DistributedLock} method would run without its lock: a private,
 * static or final method (a proxy cannot intercept it), or a bean that is not proxied by the lock
 * advisor (created too early, or a JDK proxy whose interfaces do not declare the method). Also
 * parses every annotation, so bad attributes fail start-up even on methods the proxy creator did
 * not look at. Self-invocation cannot be detected here; the README documents it. While the check before
 * commit is on, each reactive {@code @Transactional} method gets one INFO line: its transaction is checked
 * only if its publisher asks ({@code ReactiveLockContext.checkBeforeCommit()}), which no start-up check can see.
 */
public final class LockCoverageCheck implements SmartInitializingSingleton {

    private static final Logger log = LoggerFactory.getLogger(LockCoverageCheck.class);
    private static final String TRANSACTIONAL = "org.springframework.transaction.annotation.Transactional";

    private final ConfigurableListableBeanFactory beanFactory;
    private final DistributedLockAdvisor advisor;

    public LockCoverageCheck(ConfigurableListableBeanFactory beanFactory, DistributedLockAdvisor advisor) {
        this.beanFactory = beanFactory;
        this.advisor = advisor;
    }

    @Override
    public void afterSingletonsInstantiated() {
        // The check before commit is on (distlock.transaction.*): say, once per method, what a reactive one needs.
        boolean reactiveTransactionsChecked =
                beanFactory.getBeanNamesForType(BeforeCommitCheck.class, true, false).length > 0;
        List<String> problems = new ArrayList<>();
        Set<String> fixes = new LinkedHashSet<>();
        for (AnnotatedMethods.Bean bean : AnnotatedMethods.find(beanFactory)) {
            for (Method method : bean.methods()) {
                String where = LockAttributeParser.describe(method, bean.type());
                int modifiers = method.getModifiers();
                if (Modifier.isStatic(modifiers)) {
                    problems.add(where + " is static: no proxy sees static calls");
                    fixes.add("Make @DistributedLock methods instance methods of a Spring bean");
                } else if (Modifier.isPrivate(modifiers)) {
                    problems.add(where
                            + " is private: the proxy cannot intercept it, and only the class itself can call it");
                    fixes.add(
                            "Make @DistributedLock methods public and call them through the bean (another bean, or an injected self reference)");
                } else if (Modifier.isFinal(modifiers)) {
                    problems.add(where + " is final: the class-based proxy cannot override it");
                    fixes.add("Remove final from @DistributedLock methods");
                } else {
                    // parse now: bad attributes fail start-up
                    LockAttributes attributes = advisor.attributes().get(method, bean.type());
                    if (reactiveTransactionsChecked
                            && attributes != null
                            && attributes.result().reactive()
                            && transactional(method, bean.type())) {
                        log.info(
                                "{} is reactive and @Transactional: its transaction is checked before it commits only"
                                        + " if its publisher composes ReactiveLockContext.checkBeforeCommit() (see"
                                        + " docs/guarantees-at-the-resource.md, Reactive transactions)",
                                where);
                    }
                    String notCovered = notCovered(bean, method);
                    if (notCovered != null) {
                        problems.add(where + notCovered);
                        fixes.add(
                                notCovered.contains("interfaces")
                                        ? "Declare the method on the bean's interface, or use class-based proxies (spring.aop.proxy-target-class=true, the Spring Boot default)"
                                        : "Do not inject this bean into a BeanPostProcessor, BeanFactoryPostProcessor or other early infrastructure"
                                                + " (inject it lazily with @Lazy or ObjectProvider there), and make sure the class is not final");
                    }
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new DistributedLockConfigurationException(
                    problems.size() + " @DistributedLock method(s) would run without the lock:\n    "
                            + String.join("\n    ", problems),
                    String.join(". ", fixes));
        }
    }

    /** Whether Spring's {@code @Transactional} is on the method or its class (by name: spring-tx may be absent). */
    private static boolean transactional(Method method, Class<?> type) {
        return MergedAnnotations.from(method, SearchStrategy.TYPE_HIERARCHY).isPresent(TRANSACTIONAL)
                || MergedAnnotations.from(type, SearchStrategy.TYPE_HIERARCHY).isPresent(TRANSACTIONAL);
    }

    /** Why the bean's proxy does not cover the method, or null when it does (or the bean does not exist yet). */
    private String notCovered(AnnotatedMethods.Bean bean, Method method) {
        if (!beanFactory.containsSingleton(bean.name()) || beanFactory.isFactoryBean(bean.name())) {
            return null; // lazy, prototype or scoped beans are proxied when created; the proxy creator decides then
        }
        Object instance = beanFactory.getSingleton(bean.name());
        if (!(instance instanceof Advised advised)
                || Arrays.stream(advised.getAdvisors()).noneMatch(a -> a == advisor)) {
            return " belongs to bean '" + bean.name() + "', which is not proxied by the lock advisor"
                    + (Modifier.isFinal(bean.type().getModifiers())
                            ? " (its class is final, so no class-based proxy can be made)"
                            : " (it was created before the advisor could apply, usually because early infrastructure needs it)");
        }
        if (AopUtils.isJdkDynamicProxy(instance)
                && Arrays.stream(advised.getProxiedInterfaces())
                        .noneMatch(i -> ClassUtils.hasMethod(i, method.getName(), method.getParameterTypes()))) {
            return " belongs to bean '" + bean.name() + "', which is proxied through its interfaces "
                    + Arrays.stream(advised.getProxiedInterfaces())
                            .map(Class::getSimpleName)
                            .toList()
                    + ", and none of them declares the method, so callers can never reach it through the proxy";
        }
        return null;
    }
}
