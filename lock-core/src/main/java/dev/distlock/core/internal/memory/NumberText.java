package dev.distlock.core.internal.memory;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Numbers written as Redis' C code writes them: {@code %.17g} for a Lua number passed to redis.call
 * (Redis 7.0) and for a sorted-set score, {@code %.14g} for Lua 5.1's {@code tostring}. Java's own
 * {@code %g} keeps trailing zeros and never drops to plain digits the way C's does.
 */
final class NumberText {

    private NumberText() {}

    /** C's {@code %.17g}: the exact digits of any integer below 10^17. */
    static String g17(double value) {
        return g(value, 17);
    }

    /** C's {@code %.14g}, as Lua 5.1 writes a number it turns into text. */
    static String g14(double value) {
        return g(value, 14);
    }

    /** C's {@code %.<precision>g}. */
    static String g(double value, int precision) {
        if (Double.isNaN(value)) {
            return Double.doubleToRawLongBits(value) < 0 ? "-nan" : "nan";
        }
        if (Double.isInfinite(value)) {
            return value > 0 ? "inf" : "-inf";
        }
        if (value == 0) {
            return 1 / value < 0 ? "-0" : "0";
        }
        BigDecimal rounded = new BigDecimal(value).round(new MathContext(precision, RoundingMode.HALF_EVEN));
        int exponent = rounded.precision() - rounded.scale() - 1;
        if (exponent < -4 || exponent >= precision) {
            String digits = rounded.unscaledValue().abs().toString().replaceFirst("0+$", "");
            String mantissa = digits.length() == 1 ? digits : digits.charAt(0) + "." + digits.substring(1);
            String power = (exponent < 0 ? "-" : "+") + (Math.abs(exponent) < 10 ? "0" : "") + Math.abs(exponent);
            return (value < 0 ? "-" : "") + mantissa + "e" + power;
        }
        return rounded.stripTrailingZeros().toPlainString();
    }
}
