package dev.distlock.spring.aop;

import dev.distlock.spring.DistributedLockConfigurationException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * A {@code @DistributedLock} key checked at start-up: literal or SpEL, parsed once, its variables
 * matched to the method's parameters, and its text checked for what would make every call collide.
 */
final class KeyExpressions {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();
    private static final Pattern POSITIONAL = Pattern.compile("[ap](\\d+)");

    private KeyExpressions() {}

    /** One key of {@code attribute}, parsed and checked against {@code method}; a bad one fails start-up naming it. */
    static LockAttributes.Key key(String key, String attribute, Method method, String where) {
        if (key.isEmpty()) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " has an empty entry in " + attribute,
                    "Give every key a value, e.g. keys = {\"'account:' + #from\", \"'account:' + #to\"}");
        }
        if (!isExpression(key)) {
            return new LockAttributes.Key(key, null);
        }
        Expression expression;
        try {
            expression = PARSER.parseExpression(key);
        } catch (ParseException e) {
            throw new DistributedLockConfigurationException(
                    "@DistributedLock on " + where + " has " + attribute + " \"" + key
                            + "\", which is not a valid SpEL expression: " + e.getSimpleMessage(),
                    "Fix the expression, e.g. key = \"'order:' + #orderId\"; a key without #, @, quotes or parentheses is used as a literal",
                    e);
        }
        checkVariables(expression, attribute, method, where);
        checkText(expression, attribute, method, where);
        return new LockAttributes.Key(null, expression);
    }

    /**
     * A key that is a {@code #parameter}, or concatenates one, declared as a class that keeps Object's toString()
     * would give every call a lock of its own (so would a key that is an array parameter; concatenation joins an
     * array's elements). Parameters declared as Object, an interface or an abstract class may hold values with a
     * text of their own: each call checks those.
     */
    private static void checkText(Expression expression, String attribute, Method method, String where) {
        if (!(expression instanceof SpelExpression spel)) {
            return;
        }
        SpelNode root = spel.getAST();
        for (SpelNode part : root instanceof VariableReference ? List.of(root) : KeyText.parts(expression)) {
            Class<?> type = part instanceof VariableReference
                    ? parameterType(part.toStringAST().substring(1), method)
                    : null;
            boolean identity = type != null
                    && (type.isArray()
                            ? part == root
                            : type != Object.class
                                    && !type.isInterface()
                                    && !Modifier.isAbstract(type.getModifiers())
                                    && KeyText.identity(type));
            if (identity) {
                throw new DistributedLockConfigurationException(
                        "@DistributedLock on " + where + " has " + attribute + " \"" + expression.getExpressionString()
                                + "\", where " + KeyText.identityProblem(part.toStringAST(), type),
                        KeyText.identityFix(part.toStringAST(), type));
            }
        }
    }

    /** The declared type of the parameter {@code #variable} names, or null for {@code #root}, {@code #this}. */
    private static Class<?> parameterType(String variable, Method method) {
        if (variable.equals("root") || variable.equals("this")) {
            return null;
        }
        Matcher positional = POSITIONAL.matcher(variable);
        String[] names = PARAMETER_NAMES.getParameterNames(method);
        int index = positional.matches()
                ? Integer.parseInt(positional.group(1))
                : names == null ? -1 : Arrays.asList(names).indexOf(variable);
        return index >= 0 ? method.getParameterTypes()[index] : null;
    }

    /**
     * Every {@code #name} in a key must be a parameter, {@code #p0}/{@code #a0}, {@code #root} or
     * {@code #this}: checked here so that a typo, or a class compiled without {@code -parameters},
     * fails start-up instead of every call.
     */
    private static void checkVariables(Expression expression, String attribute, Method method, String where) {
        String[] names = PARAMETER_NAMES.getParameterNames(method);
        for (String variable : variables(expression)) {
            if (variable.equals("root") || variable.equals("this")) {
                continue;
            }
            Matcher positional = POSITIONAL.matcher(variable);
            if (positional.matches()) {
                if (Integer.parseInt(positional.group(1)) >= method.getParameterCount()) {
                    throw new DistributedLockConfigurationException(
                            "@DistributedLock on " + where + " uses #" + variable + " in "
                                    + attribute + " \"" + expression.getExpressionString() + "\", but the method has "
                                    + method.getParameterCount() + " parameter(s)",
                            "Number arguments from 0: #p0 (or #a0) is the first parameter");
                }
                continue;
            }
            if (names == null) {
                throw new DistributedLockConfigurationException(
                        "@DistributedLock on " + where + " uses #" + variable + " in " + attribute
                                + " \"" + expression.getExpressionString() + "\", but the parameter names of " + where
                                + " are not available at run time (its class was compiled without the -parameters flag)",
                        "Compile with -parameters (the Spring Boot parent POM and Gradle plugin do; otherwise set <parameters>true</parameters>"
                                + " on maven-compiler-plugin or add options.compilerArgs << '-parameters' in Gradle), or refer to"
                                + " arguments by position: #p0 or #a0 for the first");
            }
            if (!Arrays.asList(names).contains(variable)) {
                throw new DistributedLockConfigurationException(
                        "@DistributedLock on " + where + " uses #" + variable + " in " + attribute
                                + " \"" + expression.getExpressionString()
                                + "\", which is not a parameter of the method (its parameters: "
                                + (names.length == 0 ? "none" : "#" + String.join(", #", names)) + ")",
                        "Use a parameter name, #p0/#a0 by position, #root.methodName/#root.targetClass, or @beanName for a bean");
            }
        }
    }

    /** The names of the {@code #variables} an expression reads, without the {@code #}. */
    static Set<String> variables(Expression expression) {
        Set<String> found = new LinkedHashSet<>();
        if (expression instanceof SpelExpression spel) {
            Deque<SpelNode> nodes = new ArrayDeque<>(List.of(spel.getAST()));
            while (!nodes.isEmpty()) {
                SpelNode node = nodes.pop();
                if (node instanceof VariableReference) {
                    found.add(node.toStringAST().substring(1));
                }
                for (int i = 0; i < node.getChildCount(); i++) {
                    nodes.push(node.getChild(i));
                }
            }
        }
        return found;
    }

    /** A key is SpEL when it uses a variable, a bean, a string literal or a call; otherwise it is taken as written. */
    static boolean isExpression(String key) {
        return key.indexOf('#') >= 0 || key.indexOf('@') >= 0 || key.indexOf('\'') >= 0 || key.indexOf('(') >= 0;
    }
}
