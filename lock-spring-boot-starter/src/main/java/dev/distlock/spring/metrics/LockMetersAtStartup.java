package dev.distlock.spring.metrics;

import dev.distlock.core.LockListener;
import io.micrometer.common.KeyValue;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.observation.GlobalObservationConvention;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.ObservationFilter;
import io.micrometer.observation.ObservationPredicate;
import java.util.ArrayList;
import java.util.List;

/**
 * Registers the lock meters at zero at start-up, so that {@code /actuator/metrics} lists them and
 * dashboards and alerts can be built before the first event. Every meter gets exactly the tags its
 * first event would give it (a meter name with two tag sets would break Prometheus):
 *
 * <ul>
 *   <li>{@link LockMetrics#RENEWALS}: each outcome (renewed, lost, error);
 *   <li>per declared lock (name and type of each {@code @DistributedLock} method): {@link LockMetrics#LOST},
 *       {@link LockMetrics#ACQUIRE} with outcomes acquired and timeout, {@link LockMetrics#HELD}, and their
 *       {@code .active} long task timers.
 * </ul>
 *
 * The acquire and held timers are written by an observation handler, so their tags are worked out as
 * the observation would get them: with the application's observation predicates (a lock observation
 * switched off gets no meter), global conventions and filters (such as Spring Boot's
 * {@code management.observations.key-values}). Locks named only at run time ({@code LockTemplate},
 * {@code LockClient}) get their meters on first use. Infrastructure of the starter, not API.
 */
public final class LockMetersAtStartup {

    private final MeterRegistry registry;
    private final List<ObservationPredicate> predicates;
    private final List<GlobalObservationConvention<?>> conventions;
    private final List<ObservationFilter> filters;
    private final boolean longTaskTimers;

    /**
     * The predicates, conventions and filters are those of the application's ObservationRegistry that
     * feeds the meters (none when the starter's own registry does).
     *
     * @param longTaskTimers whether the observation meter handler writes {@code .active} long task timers
     */
    public LockMetersAtStartup(
            MeterRegistry registry,
            List<ObservationPredicate> predicates,
            List<GlobalObservationConvention<?>> conventions,
            List<ObservationFilter> filters,
            boolean longTaskTimers) {
        this.registry = registry;
        this.predicates = predicates;
        this.conventions = conventions;
        this.filters = filters;
        this.longTaskTimers = longTaskTimers;
    }

    /** The meters of no particular lock. */
    public void registerShared() {
        for (LockListener.RenewalOutcome outcome : LockListener.RenewalOutcome.values()) {
            MicrometerLockListener.renewals(registry, MicrometerLockListener.lower(outcome));
        }
    }

    /** The meters of the lock declared as {@code name}, of {@code type} (the type tag). */
    public void register(String name, String type) {
        MicrometerLockListener.lost(registry, name, type);
        observed(LockMetrics.ACQUIRE, name, type, LockMetrics.ACQUIRED);
        observed(LockMetrics.ACQUIRE, name, type, LockMetrics.TIMEOUT);
        observed(LockMetrics.HELD, name, type, null);
    }

    /** The timer (and long task timer) an observation of {@code meter} would write, unless one would not be made. */
    private void observed(String meter, String name, String type, String outcome) {
        Observation.Context context = new Observation.Context();
        context.setName(meter);
        context.addLowCardinalityKeyValue(KeyValue.of(LockMetrics.NAME, name));
        context.addLowCardinalityKeyValue(KeyValue.of(LockMetrics.TYPE, type));
        if (predicates.stream().anyMatch(p -> !p.test(meter, context))) {
            return; // a no-op observation: no meter at all
        }
        addConventionKeyValues(context);
        if (longTaskTimers) {
            // written when the observation starts: before the outcome is known, and before any filter
            LongTaskTimer.builder(meter + ".active").tags(tags(context)).register(registry);
        }
        if (outcome != null) {
            context.addLowCardinalityKeyValue(KeyValue.of(LockMetrics.OUTCOME, outcome));
        }
        Observation.Context stopped = context;
        for (ObservationFilter filter : filters) {
            stopped = filter.map(stopped);
        }
        Timer.builder(meter)
                .tags(tags(stopped))
                .tag(LockMetrics.ERROR_TAG, LockMetrics.NO_ERROR)
                .register(registry);
    }

    @SuppressWarnings("unchecked")
    private void addConventionKeyValues(Observation.Context context) {
        for (GlobalObservationConvention<?> convention : conventions) {
            if (convention.supportsContext(context)) {
                context.addLowCardinalityKeyValues(
                        ((ObservationConvention<Observation.Context>) convention).getLowCardinalityKeyValues(context));
            }
        }
    }

    private static Tags tags(Observation.Context context) {
        List<Tag> tags = new ArrayList<>();
        context.getLowCardinalityKeyValues().forEach(kv -> tags.add(Tag.of(kv.getKey(), kv.getValue())));
        return Tags.of(tags);
    }
}
