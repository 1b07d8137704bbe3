package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class StallsTest {

    @Test
    void countsOnlyTimeWhenBothTickersWereLate() {
        long[] first = {10, 20, 40, 50};
        long[] second = {15, 45};
        // Both late over 15-20 and 40-45.
        assertThat(Stalls.overlap(first, second, 0, 100)).isEqualTo(10);
    }

    @Test
    void countsOnlyTheAskedSpan() {
        long[] first = {10, 20, 40, 50};
        long[] second = {15, 45};
        assertThat(Stalls.overlap(first, second, 18, 42)).isEqualTo(4);
        assertThat(Stalls.overlap(first, second, 21, 39)).isZero();
    }

    @Test
    void oneLateTickerAloneIsNoStall() {
        assertThat(Stalls.overlap(new long[] {10, 90}, new long[0], 0, 100)).isZero();
    }
}
