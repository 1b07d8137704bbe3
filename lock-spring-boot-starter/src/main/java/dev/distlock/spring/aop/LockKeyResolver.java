package dev.distlock.spring.aop;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.EvaluationException;
import org.springframework.expression.spel.ExpressionState;
import org.springframework.expression.spel.SpelNode;

/** Evaluates a method's lock key once per call. */
final class LockKeyResolver {

    private final ParameterNameDiscoverer parameterNames = new DefaultParameterNameDiscoverer();
    private final BeanFactoryResolver beans;

    /** Whether a value of a class turns into its identity (see {@link KeyText#identity}), worked out once per class. */
    private final ClassValue<Boolean> identity = new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
            return KeyText.identity(type);
        }
    };

    LockKeyResolver(BeanFactory beanFactory) {
        this.beans = beanFactory != null ? new BeanFactoryResolver(beanFactory) : null;
    }

    /** The method's keys for this call, in declaration order. */
    List<String> resolve(LockAttributes attributes, Method method, Object[] args, Object target, Class<?> targetClass) {
        if (attributes.keys().size() == 1 && attributes.keys().get(0).literal() != null) {
            return List.of(attributes.keys().get(0).literal());
        }
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                new Root(method, args, target, targetClass), method, args, parameterNames);
        if (beans != null) {
            context.setBeanResolver(beans);
        }
        List<String> keys = new ArrayList<>(attributes.keys().size());
        for (LockAttributes.Key key : attributes.keys()) {
            keys.add(key.literal() != null ? key.literal() : evaluate(attributes, key, context));
        }
        return keys;
    }

    private String evaluate(LockAttributes attributes, LockAttributes.Key source, EvaluationContext context) {
        Object value;
        try {
            value = source.expression().getValue(context);
        } catch (EvaluationException e) {
            throw notEvaluated(attributes, source, e);
        }
        if (value != null && identity.get(value.getClass())) {
            throw identityKey(attributes, source, source.source(), value.getClass());
        }
        String key = value == null ? null : value.toString();
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException(
                    "@DistributedLock key \"" + source.source() + "\" on " + attributes.method()
                            + " evaluated to " + (key == null ? "null" : "a blank string")
                            + ": a lock needs a key; check the arguments it uses or make the expression fall back to a value");
        }
        if (key.contains("null") || key.indexOf('@') >= 0) {
            rejectParts(attributes, source, context, key);
        }
        if (key.contains("null")) {
            rejectNullVariables(attributes, source, context, key);
        }
        return key;
    }

    /**
     * A concatenated key turns a null part into "null" ({@code 'order:' + #req.orderId} with a null orderId gives
     * "order:null", one lock for every such call), and an Order that keeps Object's toString() into its identity
     * ("order:com.acme.Order@6d06d69c", a lock per call). Only a key holding "null" or an {@code @} can hold such
     * text: then its parts are evaluated again, each on its own, to find the one. An array part is fine:
     * concatenation joins its elements.
     */
    private void rejectParts(
            LockAttributes attributes, LockAttributes.Key source, EvaluationContext context, String key) {
        ExpressionState state = new ExpressionState(context);
        for (SpelNode part : KeyText.parts(source.expression())) {
            Object value;
            try {
                value = part.getValue(state);
            } catch (EvaluationException e) {
                throw notEvaluated(attributes, source, e);
            }
            if (value == null) {
                throw nullPart(attributes, source, part.toStringAST(), key);
            }
            if (!value.getClass().isArray() && identity.get(value.getClass())) {
                throw identityKey(attributes, source, part.toStringAST(), value.getClass());
            }
        }
    }

    private static IllegalArgumentException identityKey(
            LockAttributes attributes, LockAttributes.Key source, String part, Class<?> type) {
        return new IllegalArgumentException("@DistributedLock key \"" + source.source() + "\" on "
                + attributes.method() + ": in this call " + KeyText.identityProblem(part, type) + ". "
                + KeyText.identityFix(part, type));
    }

    private static IllegalArgumentException notEvaluated(
            LockAttributes attributes, LockAttributes.Key source, EvaluationException e) {
        return new IllegalArgumentException(
                "@DistributedLock key \"" + source.source() + "\" on " + attributes.method()
                        + " could not be evaluated: " + e.getMessage(),
                e);
    }

    /**
     * Beyond concatenation, {@code T(String).format('order:%s', #id)} with a null id gives "order:null" too. A
     * key holding "null" is refused for a null argument only when that null reaches the key, decided by
     * evaluating it again with the argument replaced by a marker object: when the key then reads as before
     * with the marker where "null" was, the null became text in the key. A key that handles the null
     * ({@code #id ?: 'none'}) comes out different, and its "null" is the data's ("nullsoft"). Where the
     * marker cannot stand in for the argument (the expression calls a method of it), the argument is taken to
     * reach the key, as before. The advice does not suggest a fallback value: one constant for every null
     * would put all such calls on one lock.
     */
    private static void rejectNullVariables(
            LockAttributes attributes, LockAttributes.Key source, EvaluationContext context, String key) {
        for (String name : KeyExpressions.variables(source.expression())) {
            if (!name.equals("root") && !name.equals("this") && context.lookupVariable(name) == null) {
                if (reachesKey(source, context, name, key)) {
                    throw nullPart(attributes, source, "#" + name, key);
                }
            }
        }
    }

    /** Whether the null variable {@code name} turned into (part of) the text of {@code key}. */
    private static boolean reachesKey(LockAttributes.Key source, EvaluationContext context, String name, String key) {
        NullMarker marker = new NullMarker("~distlock-absent-" + UUID.randomUUID() + "~");
        Object marked;
        try {
            context.setVariable(name, marker);
            marked = source.expression().getValue(context);
        } catch (EvaluationException | IllegalStateException e) {
            return true; // no decision from the evaluation: refuse, as for any key holding "null" from a null argument
        } finally {
            context.setVariable(name, null); // back to the call's null
        }
        String text = marked == null ? null : marked.toString();
        return text != null
                && text.contains(marker.text())
                && text.replace(marker.text(), "null").equals(key);
    }

    /** Stands in for a null argument: its text appears in a key exactly where the null's "null" would. */
    private record NullMarker(String text) {
        @Override
        public String toString() {
            return text;
        }
    }

    private static IllegalArgumentException nullPart(
            LockAttributes attributes, LockAttributes.Key source, String part, String key) {
        return new IllegalArgumentException("@DistributedLock key \"" + source.source() + "\" on "
                + attributes.method() + " uses " + part
                + ", which is null in this call, so the key would be \"" + key
                + "\": pass a value (a key must name what it protects); if null is a valid argument, build the key from"
                + " something else that identifies the resource, or check for null before calling");
    }

    /**
     * The SpEL root object: {@code #root.methodName}, {@code #root.method}, {@code #root.args},
     * {@code #root.target}, {@code #root.targetClass}.
     */
    public record Root(Method method, Object[] args, Object target, Class<?> targetClass) {
        public String getMethodName() {
            return method.getName();
        }

        public Method getMethod() {
            return method;
        }

        public Object[] getArgs() {
            return args;
        }

        public Object getTarget() {
            return target;
        }

        public Class<?> getTargetClass() {
            return targetClass;
        }
    }
}
