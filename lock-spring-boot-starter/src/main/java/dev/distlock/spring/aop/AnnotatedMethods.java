package dev.distlock.spring.aop;

import dev.distlock.spring.annotation.DistributedLock;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * The {@code @DistributedLock} methods of a bean factory's beans, found from bean types without
 * creating any bean. Used by the start-up coverage check and by the warning logged when locks are
 * switched off; not API.
 */
public final class AnnotatedMethods {

    /** One bean and its annotated methods (declared, inherited, or annotated on an interface it implements). */
    public record Bean(String name, Class<?> type, List<Method> methods) {}

    private AnnotatedMethods() {}

    /** Every bean with at least one annotated method. */
    public static List<Bean> find(ConfigurableListableBeanFactory beanFactory) {
        List<Bean> found = new ArrayList<>();
        for (String name : beanFactory.getBeanDefinitionNames()) {
            if (name.startsWith("scopedTarget.")) {
                continue;
            }
            // A created bean may be a JDK proxy already: its type says nothing of the target's methods.
            Class<?> type = beanFactory.containsSingleton(name) && !beanFactory.isFactoryBean(name)
                    ? AopProxyUtils.ultimateTargetClass(beanFactory.getSingleton(name))
                    : beanFactory.getType(name, false);
            if (type == null) {
                continue;
            }
            Class<?> user = ClassUtils.getUserClass(type);
            List<Method> methods = annotated(user);
            if (!methods.isEmpty()) {
                found.add(new Bean(name, user, methods));
            }
        }
        return found;
    }

    /** The number of annotated methods over all beans. */
    public static int count(List<Bean> beans) {
        return beans.stream().mapToInt(b -> b.methods().size()).sum();
    }

    static List<Method> annotated(Class<?> type) {
        List<Method> methods = new ArrayList<>();
        for (Method method : ReflectionUtils.getUniqueDeclaredMethods(type, ReflectionUtils.USER_DECLARED_METHODS)) {
            if (AnnotatedElementUtils.findMergedAnnotation(method, DistributedLock.class) != null) {
                methods.add(method);
            }
        }
        return methods;
    }
}
