package dev.splice.weigh.report;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Small self-contained SVG charts for the HTML reports: no scripts, no external resources, every
 * text escaped (context names are data). Each chart carries an {@code id} so that a test can find it.
 */
final class Svg {
    private Svg() {}

    /** High-confidence marks. */
    static final String HIGH = "#1b7837";
    /** Low-confidence marks. */
    static final String LOW = "#b35806";
    /** Interrupt events and clipped values. */
    static final String ALERT = "#c51b7d";

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                .replace("'", "&#39;");
    }

    static String f(double v) {
        return String.format(Locale.ROOT, "%.1f", v);
    }

    /** The chart's opening tag; a chart with a log axis has the class {@code logscale}. */
    private static StringBuilder open(String id, double w, double h, int fontSize, boolean log) {
        return new StringBuilder().append("<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"").append(esc(id))
                .append(log ? "\" class=\"logscale" : "").append("\" width=\"").append(f(w)).append("\" height=\"").append(f(h)).append("\" viewBox=\"0 0 ")
                .append(f(w)).append(' ').append(f(h)).append("\" font-family=\"sans-serif\" font-size=\"")
                .append(fontSize).append("\">");
    }

    private static void text(StringBuilder sb, double x, double y, String anchor, String s) {
        sb.append("<text x=\"").append(f(x)).append("\" y=\"").append(f(y)).append('"');
        if (!anchor.equals("start")) {
            sb.append(" text-anchor=\"").append(anchor).append('"');
        }
        sb.append('>').append(esc(s)).append("</text>");
    }

    private static void line(StringBuilder sb, double x1, double y1, double x2, double y2, String stroke, double width) {
        sb.append("<line x1=\"").append(f(x1)).append("\" y1=\"").append(f(y1)).append("\" x2=\"").append(f(x2))
                .append("\" y2=\"").append(f(y2)).append("\" stroke=\"").append(stroke).append('"');
        if (width != 1) {
            sb.append(" stroke-width=\"").append(f(width)).append('"');
        }
        sb.append("/>");
    }

    /** Vertical grid lines with labels above {@code top} (or only below {@code bottom}; both for tall charts). */
    private static void xTicks(StringBuilder sb, Axis a, double top, double bottom, boolean onlyBelow) {
        for (double t : a.ticks()) {
            double px = a.px(t);
            line(sb, px, top, px, bottom, t == 0 && !a.log() ? "#888" : "#e4e4e4", 1);
            if (!onlyBelow) {
                text(sb, px, top - 4, "middle", Axis.label(t));
            }
            if (onlyBelow || bottom - top > 400) {
                text(sb, px, bottom + 12, "middle", Axis.label(t));
            }
        }
    }

    /** Horizontal grid lines with labels left of {@code left}. */
    private static void yTicks(StringBuilder sb, Axis a, double left, double right) {
        for (double t : a.ticks()) {
            double py = a.px(t);
            line(sb, left, py, right, py, t == 0 && !a.log() ? "#888" : "#e4e4e4", 1);
            text(sb, left - 4, py + 4, "end", Axis.label(t));
        }
    }

    /** Horizontal bar chart of labelled counts. */
    static String bars(String id, Map<String, ? extends Number> data, String color) {
        int rowH = 20;
        int labelW = 260;
        int barW = 380;
        int h = Math.max(1, data.size()) * rowH + 10;
        double max = data.values().stream().mapToDouble(Number::doubleValue).max().orElse(1);
        StringBuilder sb = open(id, labelW + barW + 90, h, 12, false);
        int y = 5;
        for (var e : data.entrySet()) {
            double v = e.getValue().doubleValue();
            double w = max > 0 ? barW * v / max : 0;
            text(sb, labelW - 6, y + 14, "end", e.getKey());
            sb.append("<rect x=\"").append(labelW).append("\" y=\"").append(y + 3).append("\" width=\"").append(f(w))
                    .append("\" height=\"").append(rowH - 6).append("\" fill=\"").append(color).append("\"/>");
            text(sb, labelW + w + 5, y + 14, "start", String.valueOf(e.getValue()));
            y += rowH;
        }
        return sb.append("</svg>").toString();
    }

    /**
     * One estimate with its interval in a forest or bar chart.
     *
     * @param href link target of the label (null for none)
     * @param high whether high-confidence (filled, green) or low (hollow, orange)
     * @param zero whether the published weight is zero (drawn as a diamond)
     */
    record Mark(String label, String href, double estimate, double low, double high, boolean highQuality,
            boolean zero) {}

    /** A titled group of marks. */
    record Group(String title, List<Mark> marks) {}

    /**
     * Forest plot: one row per mark, groups under their titles, the interval as a line and the
     * estimate as a dot; on a log axis, values at or below zero are drawn as a triangle at the left
     * edge.
     */
    static String forest(String id, List<Group> groups, boolean log, String axisTitle, int labelW) {
        int rowH = 14;
        int groupH = 18;
        int plotW = 520;
        int top = 34;
        int rows = groups.stream().mapToInt(g -> g.marks().size()).sum();
        double h = top + rows * rowH + groups.size() * groupH + 24;
        double[] all = groups.stream().flatMap(g -> g.marks().stream())
                .flatMapToDouble(m -> java.util.stream.DoubleStream.of(m.estimate(), m.low(), m.high())).toArray();
        Axis a = Axis.covering(all, log, true, labelW, plotW);
        StringBuilder sb = open(id, labelW + plotW + 30, h, 11, log);
        text(sb, labelW, 12, "start", axisTitle + (log ? " (log scale; values at or below zero at the left edge)" : ""));
        xTicks(sb, a, top, h - 20, false);
        double y = top;
        for (Group g : groups) {
            sb.append("<text x=\"4\" y=\"").append(f(y + 13)).append("\" font-weight=\"bold\">").append(esc(g.title()))
                    .append("</text>");
            y += groupH;
            for (Mark m : g.marks()) {
                mark(sb, a, m, y + rowH / 2.0, labelW);
                y += rowH;
            }
        }
        return sb.append("</svg>").toString();
    }

    private static void mark(StringBuilder sb, Axis a, Mark m, double cy, int labelW) {
        String color = m.highQuality() ? HIGH : LOW;
        if (m.href() != null) {
            sb.append("<a href=\"").append(esc(m.href())).append("\">");
        }
        text(sb, labelW - 6, cy + 4, "end", m.label());
        if (m.href() != null) {
            sb.append("</a>");
        }
        sb.append("<g><title>").append(esc(m.label() + ": " + Axis.label(m.estimate()) + " [" + Axis.label(m.low()) + ", "
                + Axis.label(m.high()) + "]" + (m.highQuality() ? "" : ", low-confidence")
                + (m.zero() ? ", published as 0" : ""))).append("</title>");
        if (Double.isFinite(m.low()) && Double.isFinite(m.high())) {
            line(sb, a.px(m.low()), cy, a.px(m.high()), cy, color, 2);
        }
        if (Double.isFinite(m.estimate())) {
            double x = a.px(m.estimate());
            String fill = m.highQuality() ? color : "#fff";
            if (!a.shows(m.estimate())) {
                sb.append("<path d=\"M").append(f(x)).append(' ').append(f(cy)).append(" l6 -4 l0 8 z\" fill=\"")
                        .append(ALERT).append("\"/>");
            } else if (m.zero()) {
                sb.append("<path d=\"M").append(f(x)).append(' ').append(f(cy - 4)).append(" l4 4 l-4 4 l-4 -4 z\" fill=\"")
                        .append(fill).append("\" stroke=\"").append(color).append("\"/>");
            } else {
                sb.append("<circle cx=\"").append(f(x)).append("\" cy=\"").append(f(cy)).append("\" r=\"3\" fill=\"")
                        .append(fill).append("\" stroke=\"").append(color).append("\"/>");
            }
        }
        sb.append("</g>");
    }

    /**
     * Estimates with their intervals, one row each, on a linear axis over {@code [lo, hi]} with a
     * target range shaded (the coverage panel: shares of campaigns covered against 93 to 97%).
     */
    static String intervals(String id, List<Mark> marks, double lo, double hi, double targetLo, double targetHi,
            String axisTitle) {
        int rowH = 16;
        int labelW = 300;
        int plotW = 420;
        int top = 30;
        double h = top + marks.size() * rowH + 24;
        Axis a = Axis.covering(new double[] {lo, hi}, false, false, labelW, plotW);
        StringBuilder sb = open(id, labelW + plotW + 30, h, 11, false);
        text(sb, labelW, 12, "start", axisTitle);
        sb.append("<rect class=\"target\" x=\"").append(f(a.px(targetLo))).append("\" y=\"").append(top).append("\" width=\"")
                .append(f(a.px(targetHi) - a.px(targetLo))).append("\" height=\"").append(f(h - 24 - top))
                .append("\" fill=\"#d9f0d3\"/>");
        xTicks(sb, a, top, h - 20, false);
        double y = top;
        for (Mark m : marks) {
            mark(sb, a, m, y + rowH / 2.0, labelW);
            y += rowH;
        }
        return sb.append("</svg>").toString();
    }

    /**
     * Bar chart of estimates with their intervals as whiskers (seed 003 section 11.5 and 11.6), on a
     * linear or log axis; bars grow from {@code base} (clamped to the axis).
     */
    static String valueBars(String id, List<Mark> marks, boolean log, String axisTitle, String unit, double base) {
        int rowH = 18;
        int labelW = 240;
        int plotW = 480;
        int top = 30;
        double h = top + marks.size() * rowH + 24;
        double[] all = marks.stream().flatMapToDouble(m -> java.util.stream.DoubleStream.of(m.estimate(), m.low(), m.high()))
                .toArray();
        Axis a = Axis.covering(all, log, !log, labelW, plotW);
        StringBuilder sb = open(id, labelW + plotW + 90, h, 11, log);
        text(sb, labelW, 12, "start", axisTitle + (log ? " (log scale)" : ""));
        xTicks(sb, a, top, h - 20, false);
        double y = top;
        for (Mark m : marks) {
            String color = m.highQuality() ? HIGH : LOW;
            double from = a.px(base);
            double x = a.px(m.estimate());
            if (m.href() != null) {
                sb.append("<a href=\"").append(esc(m.href())).append("\">");
            }
            text(sb, labelW - 6, y + 13, "end", m.label());
            if (m.href() != null) {
                sb.append("</a>");
            }
            sb.append("<rect x=\"").append(f(Math.min(from, x))).append("\" y=\"").append(f(y + 3)).append("\" width=\"")
                    .append(f(Math.abs(x - from))).append("\" height=\"").append(rowH - 6).append("\" fill=\"").append(color)
                    .append("\" fill-opacity=\"").append(m.highQuality() ? "0.8" : "0.4").append("\"/>");
            if (Double.isFinite(m.low()) && Double.isFinite(m.high())) {
                line(sb, a.px(m.low()), y + rowH / 2.0, a.px(m.high()), y + rowH / 2.0, "#222", 1.5);
            }
            text(sb, labelW + plotW + 6, y + 13, "start", Axis.label(m.estimate()) + " " + unit);
            y += rowH;
        }
        return sb.append("</svg>").toString();
    }

    /**
     * Many dots of one colour as a single path of zero-length round-capped segments (a scatter of
     * 100,000 points stays a few MB); the path has the class {@code points}, one {@code M} per dot.
     */
    private static final class Points {
        private final String color;
        private final double radius;
        private final StringBuilder d = new StringBuilder();

        Points(String color, double radius) {
            this.color = color;
            this.radius = radius;
        }

        void add(double x, double y) {
            d.append('M').append(f(x)).append(' ').append(f(y)).append("h0");
        }

        void appendTo(StringBuilder sb) {
            if (d.length() > 0) {
                sb.append("<path class=\"points\" d=\"").append(d).append("\" stroke=\"").append(color)
                        .append("\" stroke-width=\"").append(f(2 * radius)).append("\" stroke-linecap=\"round\" fill=\"none\"/>");
            }
        }
    }

    /** Two estimates of one context, in the side-by-side chart. */
    record Pair(String label, Mark upper, Mark lower) {}

    /** A titled group of pairs. */
    record PairGroup(String title, List<Pair> pairs) {}

    /**
     * Side-by-side forest plot on a log axis: per context its upper mark in blue and its lower mark in
     * red, each with its interval; hollow marks are low-confidence.
     */
    static String dumbbell(String id, List<PairGroup> groups) {
        int rowH = 20;
        int groupH = 18;
        int labelW = 260;
        int plotW = 560;
        int top = 34;
        int rows = groups.stream().mapToInt(g -> g.pairs().size()).sum();
        double h = top + rows * rowH + groups.size() * groupH + 24;
        double[] all = groups.stream().flatMap(g -> g.pairs().stream()).flatMap(p -> java.util.stream.Stream.of(p.upper(), p.lower()))
                .flatMapToDouble(m -> java.util.stream.DoubleStream.of(m.estimate(), m.low(), m.high())).toArray();
        Axis a = Axis.covering(all, true, false, labelW, plotW);
        StringBuilder sb = open(id, labelW + plotW + 30, h, 11, true);
        text(sb, labelW, 12, "start", "ns per instruction (log scale; values at or below zero at the left edge)");
        xTicks(sb, a, top, h - 20, false);
        double y = top;
        for (PairGroup g : groups) {
            sb.append("<text x=\"4\" y=\"").append(f(y + 13)).append("\" font-weight=\"bold\">").append(esc(g.title()))
                    .append("</text>");
            y += groupH;
            for (Pair p : g.pairs()) {
                text(sb, labelW - 6, y + 14, "end", p.label());
                interval(sb, a, p.upper(), y + 6, "#2166ac");
                interval(sb, a, p.lower(), y + 14, "#b2182b");
                y += rowH;
            }
        }
        return sb.append("</svg>").toString();
    }

    private static void interval(StringBuilder sb, Axis a, Mark m, double cy, String color) {
        sb.append("<g><title>").append(esc(m.label() + ": " + Axis.label(m.estimate()) + " [" + Axis.label(m.low()) + ", "
                + Axis.label(m.high()) + "]")).append("</title>");
        if (Double.isFinite(m.low()) && Double.isFinite(m.high())) {
            line(sb, a.px(m.low()), cy, a.px(m.high()), cy, color, 2);
        }
        if (Double.isFinite(m.estimate())) {
            sb.append("<circle cx=\"").append(f(a.px(m.estimate()))).append("\" cy=\"").append(f(cy)).append("\" r=\"3\" fill=\"")
                    .append(m.highQuality() && a.shows(m.estimate()) ? color : "#fff").append("\" stroke=\"")
                    .append(a.shows(m.estimate()) ? color : ALERT).append("\"/>");
        }
        sb.append("</g>");
    }

    /** Quantile of sorted values (type 7). */
    static double quantile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        double h = (sorted.length - 1) * p;
        int i = (int) Math.floor(h);
        return i + 1 < sorted.length ? sorted[i] + (h - i) * (sorted[i + 1] - sorted[i]) : sorted[i];
    }

    /**
     * Box plot per labelled group: box from the first to the third quartile with the median, whiskers
     * from the 5th to the 95th percentile, values beyond them as dots; the y axis spans the 1st to
     * 99th percentile of all values (values beyond it are drawn on its edge, in the alert colour).
     */
    static String boxes(String id, String[] labels, double[][] values, String yTitle) {
        int left = 70;
        int colW = 110;
        int w = left + labels.length * colW + 20;
        int h = 240;
        int bottom = 200;
        double[] pooled = java.util.Arrays.stream(values).flatMapToDouble(java.util.Arrays::stream)
                .filter(Double::isFinite).sorted().toArray();
        double[] range = {quantile(pooled, 0.01), quantile(pooled, 0.99)};
        Axis a = Axis.covering(range, false, false, bottom, -(bottom - 20));
        StringBuilder sb = open(id, w, h, 11, false);
        yTicks(sb, a, left, w - 10);
        text(sb, 4, 12, "start", yTitle);
        for (int g = 0; g < labels.length; g++) {
            double[] v = java.util.Arrays.stream(values[g]).filter(Double::isFinite).sorted().toArray();
            double cx = left + colW * (g + 0.5);
            text(sb, cx, bottom + 16, "middle", labels[g]);
            text(sb, cx, bottom + 30, "middle", v.length + " pairs");
            if (v.length == 0) {
                continue;
            }
            double q1 = quantile(v, 0.25);
            double q3 = quantile(v, 0.75);
            double lo = quantile(v, 0.05);
            double hi = quantile(v, 0.95);
            line(sb, cx, a.px(lo), cx, a.px(hi), "#444", 1);
            sb.append("<rect x=\"").append(f(cx - 25)).append("\" y=\"").append(f(a.px(q3))).append("\" width=\"50\" height=\"")
                    .append(f(Math.max(1, a.px(q1) - a.px(q3)))).append("\" fill=\"#d1e5f0\" stroke=\"#2166ac\"/>");
            line(sb, cx - 25, a.px(quantile(v, 0.5)), cx + 25, a.px(quantile(v, 0.5)), "#2166ac", 2);
            Points beyond = new Points("#444", 1.5);
            Points off = new Points(ALERT, 1.5);
            for (double d : v) {
                if (d < lo || d > hi) {
                    (a.shows(d) ? beyond : off).add(cx, a.px(d));
                }
            }
            beyond.appendTo(sb);
            off.appendTo(sb);
        }
        return sb.append("</svg>").toString();
    }

    /**
     * Scatter plot; flagged points in the alert colour, points beyond the axes on their edges. With
     * {@code diagonal}, the line y = x. Axes cover the given ranges.
     */
    static String scatter(String id, double[] x, double[] y, boolean[] flag, Axis xAxis, Axis yAxis, String xTitle,
            String yTitle, boolean diagonal, String[] titles) {
        double w = xAxis.start() + xAxis.length() + 20;
        double h = yAxis.start() + 44;
        StringBuilder sb = open(id, w, h, 11, xAxis.log() || yAxis.log());
        xTicks(sb, xAxis, yAxis.start() + yAxis.length(), yAxis.start(), true);
        yTicks(sb, yAxis, xAxis.start(), xAxis.start() + xAxis.length());
        text(sb, xAxis.start() + xAxis.length() / 2, h - 6, "middle", xTitle);
        text(sb, 4, 12, "start", yTitle);
        if (diagonal) {
            double lo = Math.max(xAxis.lo(), yAxis.lo());
            double hi = Math.min(xAxis.hi(), yAxis.hi());
            if (hi > lo) {
                line(sb, xAxis.px(lo), yAxis.px(lo), xAxis.px(hi), yAxis.px(hi), "#888", 1);
            }
        }
        Points inside = new Points("#2166ac", 1.8);
        Points edge = new Points("#999", 1.8);
        Points alert = new Points(ALERT, 3);
        for (int i = 0; i < x.length; i++) {
            if (!Double.isFinite(x[i]) || !Double.isFinite(y[i])) {
                continue;
            }
            boolean flagged = flag != null && flag[i];
            if (titles != null) {
                sb.append("<circle cx=\"").append(f(xAxis.px(x[i]))).append("\" cy=\"").append(f(yAxis.px(y[i])))
                        .append("\" r=\"3\" fill=\"").append(flagged ? ALERT : "#2166ac").append("\"><title>")
                        .append(esc(titles[i])).append("</title></circle>");
            } else {
                (flagged ? alert : !xAxis.shows(x[i]) || !yAxis.shows(y[i]) ? edge : inside).add(xAxis.px(x[i]), yAxis.px(y[i]));
            }
        }
        inside.appendTo(sb);
        edge.appendTo(sb);
        alert.appendTo(sb);
        return sb.append("</svg>").toString();
    }

    /** Column chart of labelled values, with an optional reference level drawn as a dashed line. */
    static String columns(String id, String[] labels, double[] values, double reference, String yTitle) {
        int left = 60;
        int colW = 48;
        int w = left + labels.length * colW + 20;
        int h = 220;
        int bottom = 180;
        double[] all = java.util.Arrays.copyOf(values, values.length + 1);
        all[values.length] = reference;
        Axis a = Axis.covering(all, false, true, bottom, -(bottom - 24));
        StringBuilder sb = open(id, w, h, 11, false);
        yTicks(sb, a, left, w - 10);
        text(sb, 4, 12, "start", yTitle);
        for (int i = 0; i < labels.length; i++) {
            double x = left + colW * i + 6;
            if (Double.isFinite(values[i])) {
                double top = a.px(Math.max(0, values[i]));
                sb.append("<rect x=\"").append(f(x)).append("\" y=\"").append(f(top)).append("\" width=\"").append(colW - 12)
                        .append("\" height=\"").append(f(Math.max(0, a.px(0) - top))).append("\" fill=\"#8073ac\"/>");
            }
            text(sb, x + (colW - 12) / 2.0, bottom + 14, "middle", labels[i]);
        }
        if (Double.isFinite(reference)) {
            sb.append("<line x1=\"").append(left).append("\" y1=\"").append(f(a.px(reference))).append("\" x2=\"").append(w - 10)
                    .append("\" y2=\"").append(f(a.px(reference))).append("\" stroke=\"").append(ALERT)
                    .append("\" stroke-dasharray=\"4 3\"/>");
        }
        return sb.append("</svg>").toString();
    }

    /** Line chart of (x, y) points with axis titles. */
    static String line(String id, List<double[]> points, String xTitle, String yTitle) {
        double[] xs = points.stream().mapToDouble(p -> p[0]).toArray();
        double[] ys = points.stream().mapToDouble(p -> p[1]).toArray();
        Axis xa = Axis.covering(xs, false, true, 60, 480);
        Axis ya = Axis.covering(ys, false, false, 210, -190);
        StringBuilder sb = new StringBuilder(scatter(id, xs, ys, null, xa, ya, xTitle, yTitle, false, null));
        StringBuilder path = new StringBuilder();
        for (double[] p : points) {
            if (Double.isFinite(p[1])) {
                path.append(path.length() == 0 ? "M" : " L").append(f(xa.px(p[0]))).append(' ').append(f(ya.px(p[1])));
            }
        }
        sb.insert(sb.length() - "</svg>".length(), "<path d=\"" + path + "\" fill=\"none\" stroke=\"#2166ac\"/>");
        return sb.toString();
    }
}
