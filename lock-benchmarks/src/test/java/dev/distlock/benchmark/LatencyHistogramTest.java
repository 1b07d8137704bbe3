package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class LatencyHistogramTest {

    @Test
    void quantilesAreWithinTheBucketResolution() {
        LatencyHistogram h = new LatencyHistogram();
        for (long v = 1; v <= 100_000; v++) {
            h.record(v * 1_000); // 1 µs .. 100 ms, uniform
        }
        assertThat((double) h.quantile(0.50)).isCloseTo(50_000_000, within(50_000_000 * 0.02));
        assertThat((double) h.quantile(0.99)).isCloseTo(99_000_000, within(99_000_000 * 0.02));
        assertThat(h.count()).isEqualTo(100_000);
    }

    @Test
    void bucketsAreContiguousAndOrdered() {
        for (long v : new long[] {0, 1, 127, 128, 129, 1_000, 65_535, 1L << 40, Long.MAX_VALUE}) {
            int i = LatencyHistogram.index(v);
            assertThat(LatencyHistogram.lowest(i)).as("lower bound of %d", v).isLessThanOrEqualTo(v);
            if (v < Long.MAX_VALUE) {
                assertThat(LatencyHistogram.index(v + 1)).isIn(i, i + 1);
            }
        }
    }

    @Test
    void survivesTheTextFormAChildJvmPrints() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(250_000);
        h.record(250_000);
        h.record(9_000_000);
        LatencyHistogram back = LatencyHistogram.decode(h.encode());
        assertThat(back.count()).isEqualTo(3);
        assertThat(back.quantile(0.5)).isEqualTo(h.quantile(0.5));
        assertThat(back.quantile(1.0)).isEqualTo(h.quantile(1.0));
        assertThat(LatencyHistogram.decode(new LatencyHistogram().encode()).count())
                .isZero();
    }
}
