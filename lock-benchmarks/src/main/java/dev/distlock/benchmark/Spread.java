package dev.distlock.benchmark;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * One figure over the rounds of a benchmark: median, lowest and highest. The report shows the
 * median with the range, so a reader sees how much the rounds disagreed.
 */
record Spread(double median, double min, double max, int n) {

    static final Spread NONE = new Spread(Double.NaN, Double.NaN, Double.NaN, 0);

    /** Of the values that are numbers; {@link #NONE} when there are none. */
    static Spread of(List<Double> values) {
        double[] v = values.stream()
                .mapToDouble(Double::doubleValue)
                .filter(d -> !Double.isNaN(d))
                .sorted()
                .toArray();
        if (v.length == 0) {
            return NONE;
        }
        int mid = v.length / 2;
        double median = v.length % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
        return new Spread(median, v[0], v[v.length - 1], v.length);
    }

    boolean isEmpty() {
        return n == 0;
    }

    /** {@code median (min-max)}, just the median when the rounds agree or there was one, {@code -} when empty. */
    String format(DoubleFunction<String> number) {
        if (isEmpty()) {
            return "-";
        }
        String m = number.apply(median);
        String lo = number.apply(min);
        String hi = number.apply(max);
        return lo.equals(hi) ? m : m + " (" + lo + "-" + hi + ")";
    }

    static String ops(double v) {
        return String.format(Locale.ROOT, "%,.0f", v);
    }

    static String oneDecimal(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    static String twoDecimals(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /** A ratio: two decimals, or two significant digits below 0.1, so that 0.0025 does not read as 0. */
    static String ratio(double v) {
        return v != 0 && Math.abs(v) < 0.1 ? String.format(Locale.ROOT, "%.2g", v) : twoDecimals(v);
    }

    static String whole(double v) {
        return String.format(Locale.ROOT, "%.0f", v);
    }

    /** Nanoseconds as milliseconds with three significant digits (no unit: the column says ms). */
    static String ms(double nanos) {
        double ms = nanos / 1e6;
        if (ms >= 100) {
            return String.format(Locale.ROOT, "%.0f", ms);
        }
        if (ms >= 10) {
            return String.format(Locale.ROOT, "%.1f", ms);
        }
        if (ms >= 1) {
            return String.format(Locale.ROOT, "%.2f", ms);
        }
        return String.format(Locale.ROOT, "%.3f", ms);
    }

    @Override
    public String toString() {
        return Arrays.toString(new double[] {median, min, max});
    }
}
