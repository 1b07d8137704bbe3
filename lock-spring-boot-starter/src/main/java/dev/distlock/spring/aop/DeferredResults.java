package dev.distlock.spring.aop;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Results whose work goes on after the method returns, so that a lock released on return would not
 * cover it. Known by class name, walking the result type's supertypes, so that the starter needs
 * none of these libraries (Spring MVC, Reactor, RxJava, ...) and loads none of their classes.
 * Start-up checks a method's declared return type with it; the interceptor checks what a method
 * declared to return a plain value (an {@code Object}, a type variable) returned, and
 * {@code LockTemplate} what its work returned.
 */
public final class DeferredResults {

    private static final String LATER = "its work completes after the method returns";
    private static final String SUBSCRIBED = "it does its work when subscribed to, after the method returns";

    /** Supertypes by name, and why the work behind them runs after the method returned; the nearest one decides. */
    private static final Map<String, String> TYPES = Map.ofEntries(
            Map.entry("java.util.concurrent.CompletionStage", LATER),
            Map.entry("java.util.concurrent.Future", LATER),
            Map.entry("org.reactivestreams.Publisher", SUBSCRIBED),
            Map.entry("java.util.concurrent.Flow$Publisher", SUBSCRIBED),
            Map.entry(
                    "java.util.concurrent.Callable",
                    "whoever receives it (Spring MVC, an executor) calls it after the method returns"),
            Map.entry(
                    "org.springframework.web.context.request.async.WebAsyncTask",
                    "Spring MVC runs it after the method returns"),
            Map.entry(
                    "org.springframework.web.context.request.async.DeferredResult",
                    "other code sets its result after the method returns"),
            Map.entry(
                    "org.springframework.web.servlet.mvc.method.annotation.StreamingResponseBody",
                    "Spring MVC writes the response body with it after the method returns"),
            Map.entry(
                    "org.springframework.web.servlet.mvc.method.annotation.ResponseBodyEmitter",
                    "it sends its data after the method returns"),
            Map.entry(
                    "java.util.stream.BaseStream",
                    "a Stream is lazy: its operations run when the caller consumes it, after the method returns"));

    /** Libraries of asynchronous types, not all of them publishers (RxJava's Single, Mutiny's Uni, coroutine Jobs). */
    private static final List<String> PACKAGES =
            List.of("reactor.", "kotlinx.coroutines.", "io.reactivex.", "rx.", "io.smallrye.mutiny.");

    /** {@link #why} per class, worked out once: results are checked on every call. */
    private static final ClassValue<Optional<String>> BY_CLASS = new ClassValue<>() {
        @Override
        protected Optional<String> computeValue(Class<?> type) {
            return Optional.ofNullable(why(type));
        }
    };

    private DeferredResults() {}

    /** Why the work behind {@code result} completes after the method returned; {@code null} for a plain value or null. */
    public static @Nullable String of(@Nullable Object result) {
        return result == null ? null : BY_CLASS.get(result.getClass()).orElse(null);
    }

    /** Why the work behind a result of {@code type} completes after the method returns; {@code null} for a plain value. */
    public static @Nullable String why(Class<?> type) {
        Set<String> names = new LinkedHashSet<>();
        supertypes(type, names);
        for (String name : names) {
            String why = TYPES.get(name);
            if (why != null) {
                return why;
            }
        }
        String name = type.getName();
        return PACKAGES.stream().anyMatch(name::startsWith) ? LATER : null;
    }

    private static void supertypes(Class<?> type, Set<String> names) {
        if (type != null && names.add(type.getName())) {
            supertypes(type.getSuperclass(), names);
            for (Class<?> implemented : type.getInterfaces()) {
                supertypes(implemented, names);
            }
        }
    }
}
