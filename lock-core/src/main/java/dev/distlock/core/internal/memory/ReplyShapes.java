package dev.distlock.core.internal.memory;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A script's reply in the shapes the Redis runner's Lettuce outputs give it: an integer output keeps
 * the last integer it is sent (null for nil or text), and the flat array output ({@code
 * FlatArrayOutput}) starts its list afresh whenever an array begins and takes a status as its text.
 */
final class ReplyShapes {

    private ReplyShapes() {}

    static @Nullable Long integer(@Nullable Object reply) {
        if (reply instanceof List<?> items) {
            Long last = null;
            for (Object item : items) {
                last = item instanceof Long number ? number : last;
            }
            return last;
        }
        return reply instanceof Long number ? number : null;
    }

    static List<Object> flatArray(@Nullable Object reply) {
        List<List<Object>> current = new ArrayList<>();
        current.add(new ArrayList<>());
        flatten(reply, current);
        return current.get(0);
    }

    private static void flatten(@Nullable Object reply, List<List<Object>> current) {
        if (reply instanceof List<?> items) {
            current.set(0, new ArrayList<>(items.size()));
            for (Object item : items) {
                flatten(item, current);
            }
        } else {
            current.get(0).add(reply instanceof Commands.Status status ? status.text() : reply);
        }
    }
}
