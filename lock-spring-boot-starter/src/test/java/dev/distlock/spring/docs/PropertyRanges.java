package dev.distlock.spring.docs;

import java.util.List;
import java.util.Optional;

/**
 * The values each constrained {@code distlock.*} property accepts: the "accepted" column of
 * docs/configuration.md, written by {@link ConfigurationReferenceTest}. Each row is proven by
 * {@code PropertyRangesTest}: its {@code outside} values fail start-up naming the property and its
 * {@code edges} start, so the reference cannot promise a range that start-up does not keep.
 */
public final class PropertyRanges {

    /**
     * One property's range.
     *
     * @param property the property
     * @param accepted what docs/configuration.md says it accepts
     * @param outside values just outside the range (each one fails start-up)
     * @param edges values at the ends of the range (each one starts); empty when only a running Redis
     *     could prove them
     * @param with other properties the values need (replica-ack-timeout is checked only with replica-acks)
     */
    public record Range(String property, String accepted, List<String> outside, List<String> edges, List<String> with) {

        /** The property set to {@code value}, after the properties it needs. */
        public String[] settings(String value) {
            return java.util.stream.Stream.concat(with.stream(), java.util.stream.Stream.of(property + "=" + value))
                    .toArray(String[]::new);
        }

        @Override
        public String toString() {
            return property;
        }
    }

    /** Every constrained property; a number or duration not listed here must be in {@link #UNCONSTRAINED}. */
    public static final List<Range> RANGES = List.of(
            range("distlock.wait-time", "0 to 365 days", List.of("-1ms", "366d"), List.of("0s", "365d")),
            range(
                    "distlock.lease-time",
                    "10 ms to 365 days, or unset (the watchdog lease)",
                    List.of("9ms", "366d"),
                    List.of("10ms", "365d")),
            range("distlock.watchdog-lease", "30 ms to 365 days", List.of("29ms", "366d"), List.of("30ms", "365d")),
            range(
                    "distlock.fencing-counter-ttl",
                    "1 min to 3650 days",
                    List.of("59s", "3651d"),
                    List.of("1m", "3650d")),
            range(
                    "distlock.max-hold",
                    "10 ms to 365 days, or unset (no cap)",
                    List.of("9ms", "366d"),
                    List.of("10ms", "365d")),
            range("distlock.operation-timeout", "10 ms to 1 h", List.of("9ms", "61m"), List.of("10ms", "1h")),
            range("distlock.max-key-length", "1 or more", List.of("0", "-1"), List.of("1")),
            range("distlock.actuator.max-listed-locks", "1 or more", List.of("0"), List.of("1")),
            range("distlock.local-hand-offs", "0 (off) to 1000", List.of("-1", "1001"), List.of("0", "1000")),
            range("distlock.local-hand-off-window", "0 to 10 s", List.of("-1ms", "10001ms"), List.of("0s", "10s")),
            range("distlock.replica-acks", "0 (off) or more; not on Redis Cluster", List.of("-1"), List.of("0", "1")),
            new Range(
                    "distlock.replica-ack-timeout",
                    "1 ms to 1 h (read only when replica-acks is not 0)",
                    List.of("0ms", "61m"),
                    List.of("1ms", "1h"),
                    List.of("distlock.replica-acks=1")),
            range("distlock.health.timeout", "more than 0", List.of("0s", "-1s"), List.of("1ms")),
            range("distlock.health.lease-loss-window", "more than 0", List.of("0s", "-1m"), List.of("1ms")),
            range(
                    "distlock.key-prefix",
                    "no `{`, `}` or control characters",
                    List.of("app{x}:", "app}x:", "app\tx:"),
                    List.of("", "app:")),
            range(
                    "distlock.leader.roles",
                    "none, or role names, each not blank and listed once",
                    List.of("a,a", "a,,b"),
                    List.of("a,b")),
            range(
                    "distlock.redlock.nodes",
                    "none, or 3 or more independent masters, each listed once",
                    List.of(
                            "redis://127.0.0.1:1,redis://127.0.0.1:2",
                            "redis://127.0.0.1:1,redis://127.0.0.1:1,redis://127.0.0.1:2",
                            "redis://127.0.0.1:1,redis://127.0.0.1:2,no uri"),
                    List.of()));

    /** Numbers and durations that take any value of their type. */
    public static final List<String> UNCONSTRAINED = List.of("distlock.aop.order");

    private PropertyRanges() {}

    /** The range of {@code property}, if it has one. */
    public static Optional<Range> of(String property) {
        return RANGES.stream().filter(r -> r.property().equals(property)).findFirst();
    }

    private static Range range(String property, String accepted, List<String> outside, List<String> edges) {
        return new Range(property, accepted, outside, edges, List.of());
    }
}
