package dev.distlock.spring.execution;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import reactor.util.context.ContextView;

/**
 * What a {@code @DistributedLock} publisher puts in its Reactor {@code Context} for a reactive transaction's
 * check before commit ({@code ReactiveLockContext.checkBeforeCommit()}): the holds of the enclosing lock
 * publishers, innermost first, and the check. Its key is {@link #KEY}, a class rather than a name, so nothing
 * outside the starter reads or forges it. Infrastructure of the starter, not API.
 *
 * @param check the before-commit check, or {@code null} when there is none (without Spring's transactions, or
 *        with distlock.transaction.check-before-commit=false); looked up only when a publisher asks for it
 */
public record ReactiveHolds(List<ActiveHolds.Entry> holds, Supplier<@Nullable BeforeCommitCheck> check) {

    /** The Reactor {@code Context} key. */
    public static final Class<ReactiveHolds> KEY = ReactiveHolds.class;

    /** The holds seen inside {@code hold}'s publisher: its own, then those of the publishers around it. */
    static ReactiveHolds inside(
            ContextView context, ActiveHolds.Entry hold, Supplier<@Nullable BeforeCommitCheck> check) {
        List<ActiveHolds.Entry> holds = new ArrayList<>();
        holds.add(hold);
        context.<ReactiveHolds>getOrEmpty(KEY).ifPresent(outer -> holds.addAll(outer.holds()));
        return new ReactiveHolds(List.copyOf(holds), check);
    }
}
