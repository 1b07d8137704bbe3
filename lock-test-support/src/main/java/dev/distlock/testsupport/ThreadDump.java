package dev.distlock.testsupport;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The JVM's own thread dump in its JSON form ({@code HotSpotDiagnosticMXBean.dumpThreads}, Java 21+,
 * reached by reflection as the sources stay Java 17), which lists virtual threads too. From Java 24 on
 * it also lists the monitors each thread owns: a virtual thread that parks while it owns one is pinned
 * to its carrier on Java 21-23 (JEP 491 lifted that in 24), so a dump taken on a newer JDK still shows
 * code that would pin on those.
 */
public final class ThreadDump {

    /** One thread of the dump: its name, whether it is virtual, its state, its frames, top first. */
    public record DumpedThread(String name, boolean virtual, String state, List<String> stack, boolean ownsMonitors) {

        /** Whether a frame of {@code prefix} (a package or class name) is on its stack. */
        public boolean runs(String prefix) {
            return stack.stream().anyMatch(frame -> frame.contains(prefix));
        }
    }

    private ThreadDump() {}

    /** Dumps every thread of this JVM to {@code file} (which must not exist yet) and reads the dump back. */
    public static List<DumpedThread> take(Path file) throws Exception {
        Class<?> beanType = Class.forName("com.sun.management.HotSpotDiagnosticMXBean");
        @SuppressWarnings({"unchecked", "rawtypes"})
        Object bean = ManagementFactory.getPlatformMXBean((Class) beanType);
        Class<?> format = Class.forName("com.sun.management.HotSpotDiagnosticMXBean$ThreadDumpFormat");
        Object json = null;
        for (Object constant : format.getEnumConstants()) {
            if (((Enum<?>) constant).name().equals("JSON")) {
                json = constant;
            }
        }
        Method dump = beanType.getMethod("dumpThreads", String.class, format);
        dump.invoke(bean, file.toAbsolutePath().toString(), json);
        return threads(new Json(Files.readString(file, StandardCharsets.UTF_8)).value());
    }

    @SuppressWarnings("unchecked")
    private static List<DumpedThread> threads(Object dump) {
        List<DumpedThread> threads = new ArrayList<>();
        Map<String, Object> root = (Map<String, Object>) ((Map<String, Object>) dump).get("threadDump");
        for (Object container : (List<Object>) root.get("threadContainers")) {
            for (Object t : (List<Object>) ((Map<String, Object>) container).get("threads")) {
                Map<String, Object> thread = (Map<String, Object>) t;
                List<String> stack = new ArrayList<>();
                for (Object frame : (List<Object>) thread.getOrDefault("stack", List.of())) {
                    stack.add((String) frame);
                }
                List<Object> monitors = (List<Object>) thread.getOrDefault("monitorsOwned", List.of());
                threads.add(new DumpedThread(
                        String.valueOf(thread.get("name")),
                        "true".equals(thread.get("virtual")),
                        String.valueOf(thread.get("state")),
                        stack,
                        !monitors.isEmpty()));
            }
        }
        return threads;
    }

    /** Just enough JSON for the dump: objects, arrays, strings, and numbers, booleans and null as text. */
    private static final class Json {

        private final String text;
        private int at;

        Json(String text) {
            this.text = text;
        }

        Object value() {
            skipSpace();
            char c = text.charAt(at);
            if (c == '{') {
                Map<String, Object> object = new LinkedHashMap<>();
                elements('}', () -> {
                    String key = string();
                    skipSpace();
                    expect(':');
                    object.put(key, value());
                });
                return object;
            }
            if (c == '[') {
                List<Object> array = new ArrayList<>();
                elements(']', () -> array.add(value()));
                return array;
            }
            if (c == '"') {
                return string();
            }
            int start = at;
            while (at < text.length() && ",}] \n\r\t".indexOf(text.charAt(at)) < 0) {
                at++;
            }
            return text.substring(start, at);
        }

        /** The elements of an object or array (the reader at its opening bracket), up to {@code close}. */
        private void elements(char close, Runnable element) {
            at++;
            skipSpace();
            if (text.charAt(at) == close) {
                at++;
                return;
            }
            do {
                skipSpace();
                element.run();
                skipSpace();
            } while (text.charAt(at++) == ',');
        }

        private String string() {
            expect('"');
            StringBuilder out = new StringBuilder();
            while (text.charAt(at) != '"') {
                char c = text.charAt(at++);
                if (c == '\\') {
                    char escaped = text.charAt(at++);
                    switch (escaped) {
                        case 'n' -> out.append('\n');
                        case 't' -> out.append('\t');
                        case 'r' -> out.append('\r');
                        case 'b' -> out.append('\b');
                        case 'f' -> out.append('\f');
                        case 'u' -> {
                            out.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                            at += 4;
                        }
                        default -> out.append(escaped);
                    }
                } else {
                    out.append(c);
                }
            }
            at++;
            return out.toString();
        }

        private void expect(char c) {
            if (text.charAt(at) != c) {
                throw new IllegalArgumentException("thread dump: expected '" + c + "' at " + at);
            }
            at++;
        }

        private void skipSpace() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
                at++;
            }
        }
    }
}
