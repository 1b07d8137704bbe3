package dev.distlock.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class SpreadTest {

    @Test
    void showsTheMedianWithTheRangeOfTheRounds() {
        Spread s = Spread.of(List.of(3.0, 1.0, 2.0));
        assertThat(s.median()).isEqualTo(2.0);
        assertThat(s.format(Spread::twoDecimals)).isEqualTo("2.00 (1.00-3.00)");
    }

    @Test
    void evenRoundsAverageTheMiddleTwo() {
        assertThat(Spread.of(List.of(4.0, 1.0, 2.0, 3.0)).median()).isEqualTo(2.5);
    }

    @Test
    void oneRoundOrAgreeingRoundsShowOneFigure() {
        assertThat(Spread.of(List.of(7.0)).format(Spread::whole)).isEqualTo("7");
        assertThat(Spread.of(List.of(7.0, 7.2)).format(Spread::whole)).isEqualTo("7");
    }

    @Test
    void figuresThatDoNotApplyAreLeftOut() {
        assertThat(Spread.of(List.of(Double.NaN, 5.0)).format(Spread::whole)).isEqualTo("5");
        assertThat(Spread.of(List.of(Double.NaN)).format(Spread::whole)).isEqualTo("-");
    }

    @Test
    void aSmallRatioKeepsTwoSignificantDigits() {
        assertThat(Spread.ratio(0.0025)).isEqualTo("0.0025");
        assertThat(Spread.ratio(0.25)).isEqualTo("0.25");
        assertThat(Spread.ratio(74.16)).isEqualTo("74.16");
        assertThat(Spread.ratio(0)).isEqualTo("0.00");
    }
}
