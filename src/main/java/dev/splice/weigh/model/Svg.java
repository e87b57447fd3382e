package dev.splice.weigh.model;

import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Small self-contained SVG charts for the HTML report (no scripts, no external resources). */
final class Svg {
    private Svg() {}

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    private static String f(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /** Horizontal bar chart of labelled counts. */
    static String bars(Map<String, ? extends Number> data, String color) {
        int rowH = 22;
        int labelW = 260;
        int barW = 360;
        int h = Math.max(1, data.size()) * rowH + 10;
        double max = data.values().stream().mapToDouble(Number::doubleValue).max().orElse(1);
        StringBuilder sb = new StringBuilder();
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(labelW + barW + 100).append("\" height=\"")
                .append(h).append("\" font-family=\"sans-serif\" font-size=\"12\">");
        int y = 5;
        for (var e : data.entrySet()) {
            double v = e.getValue().doubleValue();
            double w = max > 0 ? barW * v / max : 0;
            sb.append("<text x=\"").append(labelW - 6).append("\" y=\"").append(y + 15)
                    .append("\" text-anchor=\"end\">").append(esc(e.getKey())).append("</text>");
            sb.append("<rect x=\"").append(labelW).append("\" y=\"").append(y + 3).append("\" width=\"").append(f(w))
                    .append("\" height=\"").append(rowH - 6).append("\" fill=\"").append(color).append("\"/>");
            sb.append("<text x=\"").append(f(labelW + w + 5)).append("\" y=\"").append(y + 15).append("\">")
                    .append(e.getValue()).append("</text>");
            y += rowH;
        }
        return sb.append("</svg>").toString();
    }

    /** A forest plot row. */
    record Row(String label, double estimate, double low, double high, boolean high_quality) {}

    /** Forest plot of estimates with their intervals, on a linear or log10 axis. */
    static String forest(List<Row> rows, boolean log) {
        int rowH = 13;
        int labelW = 300;
        int plotW = 520;
        int top = 30;
        int h = top + rows.size() * rowH + 20;
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (Row r : rows) {
            for (double v : new double[] {r.low(), r.high(), r.estimate()}) {
                if (Double.isFinite(v) && (!log || v > 0)) {
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
        }
        if (!Double.isFinite(lo)) {
            lo = log ? 0.01 : 0;
            hi = log ? 10 : 1;
        }
        if (log) {
            lo = Math.pow(10, Math.floor(Math.log10(lo)));
            hi = Math.pow(10, Math.ceil(Math.log10(hi)));
        } else {
            lo = Math.min(lo, 0);
            double pad = (hi - lo) * 0.05 + 1e-9;
            hi += pad;
        }
        final double a = lo;
        final double b = hi;
        java.util.function.DoubleUnaryOperator x = v -> {
            double t = log ? (Math.log10(Math.max(v, a)) - Math.log10(a)) / (Math.log10(b) - Math.log10(a)) : (v - a) / (b - a);
            return labelW + plotW * Math.max(0, Math.min(1, t));
        };
        StringBuilder sb = new StringBuilder();
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(labelW + plotW + 30).append("\" height=\"")
                .append(h).append("\" font-family=\"sans-serif\" font-size=\"10\">");
        // Axis ticks.
        if (log) {
            for (double t = lo; t <= hi * 1.0001; t *= 10) {
                tick(sb, x.applyAsDouble(t), top, h, String.format(Locale.ROOT, "%g", t));
            }
        } else {
            double step = niceStep((hi - lo) / 6);
            for (double t = Math.ceil(lo / step) * step; t <= hi; t += step) {
                tick(sb, x.applyAsDouble(t), top, h, String.format(Locale.ROOT, "%.3g", t));
            }
            if (lo < 0) {
                sb.append("<line x1=\"").append(f(x.applyAsDouble(0))).append("\" y1=\"").append(top).append("\" x2=\"")
                        .append(f(x.applyAsDouble(0))).append("\" y2=\"").append(h - 20).append("\" stroke=\"#888\"/>");
            }
        }
        sb.append("<text x=\"").append(labelW).append("\" y=\"12\">ns per instruction")
                .append(log ? " (log scale; non-positive values clipped)" : "").append("</text>");
        int y = top;
        for (Row r : rows) {
            String color = r.high_quality() ? "#1b7837" : "#b35806";
            double cy = y + rowH / 2.0;
            sb.append("<text x=\"").append(labelW - 6).append("\" y=\"").append(f(cy + 3)).append("\" text-anchor=\"end\">")
                    .append(esc(r.label())).append("</text>");
            if (Double.isFinite(r.low()) && Double.isFinite(r.high())) {
                sb.append("<line x1=\"").append(f(x.applyAsDouble(r.low()))).append("\" y1=\"").append(f(cy))
                        .append("\" x2=\"").append(f(x.applyAsDouble(r.high()))).append("\" y2=\"").append(f(cy))
                        .append("\" stroke=\"").append(color).append("\" stroke-width=\"2\"/>");
            }
            if (Double.isFinite(r.estimate())) {
                sb.append("<circle cx=\"").append(f(x.applyAsDouble(r.estimate()))).append("\" cy=\"").append(f(cy))
                        .append("\" r=\"3\" fill=\"").append(color).append("\"/>");
            }
            y += rowH;
        }
        return sb.append("</svg>").toString();
    }

    private static void tick(StringBuilder sb, double px, int top, int h, String label) {
        sb.append("<line x1=\"").append(f(px)).append("\" y1=\"").append(top - 4).append("\" x2=\"").append(f(px))
                .append("\" y2=\"").append(h - 20).append("\" stroke=\"#ddd\"/>");
        sb.append("<text x=\"").append(f(px)).append("\" y=\"").append(top - 8).append("\" text-anchor=\"middle\">")
                .append(esc(label)).append("</text>");
    }

    private static double niceStep(double raw) {
        if (!(raw > 0)) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(raw)));
        double m = raw / p;
        return (m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p;
    }

    /** Line chart of (x, y) points with axis labels. */
    static String line(List<double[]> points, String xLabel, String yLabel) {
        int w = 560;
        int h = 260;
        int left = 60;
        int bottom = 40;
        double xmax = points.stream().mapToDouble(p -> p[0]).max().orElse(1);
        double ymin = points.stream().mapToDouble(p -> p[1]).filter(Double::isFinite).min().orElse(0);
        double ymax = points.stream().mapToDouble(p -> p[1]).filter(Double::isFinite).max().orElse(1);
        double pad = (ymax - ymin) * 0.1 + 1e-6;
        ymin -= pad;
        ymax += pad;
        StringBuilder sb = new StringBuilder();
        sb.append("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"").append(w).append("\" height=\"").append(h)
                .append("\" font-family=\"sans-serif\" font-size=\"11\">");
        sb.append("<line x1=\"").append(left).append("\" y1=\"").append(h - bottom).append("\" x2=\"").append(w - 10)
                .append("\" y2=\"").append(h - bottom).append("\" stroke=\"#444\"/>");
        sb.append("<line x1=\"").append(left).append("\" y1=\"10\" x2=\"").append(left).append("\" y2=\"")
                .append(h - bottom).append("\" stroke=\"#444\"/>");
        StringBuilder path = new StringBuilder();
        for (double[] p : points) {
            if (!Double.isFinite(p[1])) {
                continue;
            }
            double px = left + (w - 10 - left) * p[0] / xmax;
            double py = (h - bottom) - (h - bottom - 10) * (p[1] - ymin) / (ymax - ymin);
            path.append(path.length() == 0 ? "M" : " L").append(f(px)).append(' ').append(f(py));
            sb.append("<circle cx=\"").append(f(px)).append("\" cy=\"").append(f(py)).append("\" r=\"3\" fill=\"#2166ac\"/>");
            sb.append("<text x=\"").append(f(px)).append("\" y=\"").append(h - bottom + 14).append("\" text-anchor=\"middle\">")
                    .append((int) p[0]).append("</text>");
        }
        sb.append("<path d=\"").append(path).append("\" fill=\"none\" stroke=\"#2166ac\"/>");
        for (int i = 0; i <= 4; i++) {
            double v = ymin + (ymax - ymin) * i / 4;
            double py = (h - bottom) - (h - bottom - 10) * i / 4.0;
            sb.append("<text x=\"").append(left - 4).append("\" y=\"").append(f(py + 4)).append("\" text-anchor=\"end\">")
                    .append(String.format(Locale.ROOT, "%.3f", v)).append("</text>");
        }
        sb.append("<text x=\"").append((left + w) / 2).append("\" y=\"").append(h - 8).append("\" text-anchor=\"middle\">")
                .append(esc(xLabel)).append("</text>");
        sb.append("<text x=\"12\" y=\"").append(h / 2).append("\" transform=\"rotate(-90 12 ").append(h / 2)
                .append(")\" text-anchor=\"middle\">").append(esc(yLabel)).append("</text>");
        return sb.append("</svg>").toString();
    }
}
