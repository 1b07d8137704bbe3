package dev.distlock.spring.aop;

import java.util.ArrayList;
import java.util.List;
import org.springframework.expression.Expression;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.OpPlus;
import org.springframework.expression.spel.standard.SpelExpression;

/**
 * How a key's value becomes the lock's name, and the values that would give a name of their own to
 * every call: an object without a {@code toString()} of its own (Object's gives {@code Order@6d06d69c},
 * its identity) or an array. Start-up checks the declared types of the parameters a key is made of;
 * each call checks the values.
 */
final class KeyText {

    private KeyText() {}

    /** Whether a value of {@code type} turns into its identity: an array, or a class that keeps Object's toString(). */
    static boolean identity(Class<?> type) {
        if (type.isPrimitive()) {
            return false; // a key gets it boxed
        }
        try {
            return type.isArray() || type.getMethod("toString").getDeclaringClass() == Object.class;
        } catch (NoSuchMethodException e) {
            throw new IllegalStateException("No toString() on " + type.getName(), e);
        }
    }

    /**
     * The parts of a key that concatenates them ({@code 'order:' + #id}), each of which becomes text
     * on its own: a null part "null", an object its {@code toString()}. Empty for any other key.
     */
    static List<SpelNode> parts(Expression expression) {
        List<SpelNode> parts = new ArrayList<>();
        if (expression instanceof SpelExpression spel && spel.getAST() instanceof OpPlus) {
            addParts(spel.getAST(), parts);
        }
        return parts;
    }

    private static void addParts(SpelNode node, List<SpelNode> parts) {
        if (node instanceof OpPlus) {
            for (int i = 0; i < node.getChildCount(); i++) {
                addParts(node.getChild(i), parts);
            }
        } else {
            parts.add(node);
        }
    }

    /** Why a key from {@code part}, of {@code type}, would not exclude anything. */
    static String identityProblem(String part, Class<?> type) {
        return part + " is "
                + (type.isArray()
                        ? "an array (" + type.getSimpleName() + ")"
                        : "a " + type.getName() + ", which has no toString() of its own")
                + ": its text is its identity (such as \"" + type.getName() + "@6d06d69c\"), different for every"
                + " object, so calls for the same thing would take different locks and not exclude each other";
    }

    /** What to write instead of {@code part} in the key. */
    static String identityFix(String part, Class<?> type) {
        return type.isArray()
                ? "Use its elements, e.g. T(java.util.Arrays).toString(" + part + "), or one of them such as " + part
                        + "[0]"
                : "Use a field such as " + part + ".id, or give " + type.getSimpleName()
                        + " a toString() that identifies it";
    }
}
