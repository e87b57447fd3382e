package dev.splice.weigh.report;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;

/**
 * A horizontal or vertical value axis mapped onto pixels, linear or log10, with readable ticks
 * (1, 2, 5 per decade on a log axis; 1, 2, 5 times a power of ten apart on a linear one).
 *
 * @param lo smallest value shown
 * @param hi largest value shown
 * @param log whether the axis is log10 (then {@code lo > 0})
 * @param start pixel of {@code lo}
 * @param length pixels from {@code lo} to {@code hi} (negative for a vertical axis growing upwards)
 */
record Axis(double lo, double hi, boolean log, double start, double length) {
    /** A log axis spans at most this many decades: smaller values sit on its left edge, marked. */
    static final int MAX_DECADES = 5;

    /**
     * An axis that shows every finite value given (on a log axis the positive ones, at most
     * {@link #MAX_DECADES} below the largest), rounded out to whole decades (log) or padded by 5%
     * (linear; with {@code withZero} it includes 0).
     */
    static Axis covering(double[] values, boolean log, boolean withZero, double start, double length) {
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (double v : values) {
            if (Double.isFinite(v) && (!log || v > 0)) {
                lo = Math.min(lo, v);
                hi = Math.max(hi, v);
            }
        }
        if (!Double.isFinite(lo)) {
            lo = log ? 0.01 : 0;
            hi = log ? 10 : 1;
        }
        if (log) {
            lo = Math.pow(10, Math.floor(Math.log10(lo)));
            hi = Math.pow(10, Math.ceil(Math.log10(hi)));
            lo = Math.max(lo, hi / Math.pow(10, MAX_DECADES));
            if (hi <= lo) {
                hi = lo * 10;
            }
        } else {
            if (withZero) {
                lo = Math.min(lo, 0);
                hi = Math.max(hi, 0);
            }
            double pad = (hi - lo) * 0.05;
            if (!(pad > 0)) {
                pad = Math.max(Math.abs(hi) * 0.1, 1e-3);
            }
            lo -= withZero && lo == 0 ? 0 : pad;
            hi += pad;
        }
        return new Axis(lo, hi, log, start, length);
    }

    /** @return whether v is inside the axis (a log axis cannot show non-positive values) */
    boolean shows(double v) {
        return Double.isFinite(v) && v >= lo && v <= hi;
    }

    /** @return the pixel of v, clamped to the axis ends */
    double px(double v) {
        double t;
        if (log) {
            t = v > 0 ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : 0;
        } else {
            t = (v - lo) / (hi - lo);
        }
        if (!Double.isFinite(t)) {
            t = 0;
        }
        return start + length * Math.max(0, Math.min(1, t));
    }

    /** @return the values that get a tick, ascending */
    List<Double> ticks() {
        List<Double> out = new ArrayList<>();
        if (log) {
            double decades = Math.log10(hi / lo);
            double[] steps = decades > 5 ? new double[] {1} : decades > 2 ? new double[] {1, 3} : new double[] {1, 2, 5};
            for (double d = lo; d <= hi * 1.0001; d *= 10) {
                for (double s : steps) {
                    double t = round(d * s);
                    if (t >= lo * 0.9999 && t <= hi * 1.0001) {
                        out.add(t);
                    }
                }
            }
        } else {
            double step = niceStep((hi - lo) / 6);
            for (double t = Math.ceil(lo / step) * step; t <= hi + step * 1e-9; t += step) {
                out.add(round(Math.abs(t) < step * 1e-9 ? 0 : t));
            }
        }
        return out;
    }

    private static double round(double v) {
        return new BigDecimal(v).round(new MathContext(6)).doubleValue();
    }

    private static double niceStep(double raw) {
        if (!(raw > 0)) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        double m = raw / p;
        return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p;
    }

    /**
     * A number as a tick or table reads it: three significant digits, no trailing zeros, no exponent.
     *
     * @param v the value
     * @return its label
     */
    static String label(double v) {
        if (!Double.isFinite(v)) {
            return "n/a";
        }
        if (v == 0) {
            return "0";
        }
        return new BigDecimal(v).round(new MathContext(3)).stripTrailingZeros().toPlainString();
    }
}
