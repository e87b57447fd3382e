package dev.splice.weigh.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The campaign's background of interrupt events and each context's share of it. Host interrupts
 * arrive at a steady rate {@code lambda} per unit of CPU time and add tens of microseconds to the
 * window they hit, so the chance that a pair is hit grows with its exposure {@code E} (the CPU time
 * of its two windows, less the excess time of a detected event): {@code P(hit) = 1 - exp(-lambda E)}.
 *
 * <p>Background: {@code lambda} is the maximum-likelihood rate of that model over the
 * <em>sensitive</em> pairs (where every event of at least {@link ContextAnalysis#EVENT_MIN_NS} is
 * detected), and the event sizes are those pairs' excess times; both pooled over the contexts whose
 * own counts agree with the background: a context significantly and materially above it is left out
 * and the background recomputed, until no context changes side. A context expects {@code sum_i
 * 1 - exp(-lambda S(D_i) E_i)} detected events, with {@code D_i} the detection threshold of pair i and
 * {@code S(D)} the share of background events at least that large.
 */
final class Interrupts {
    /** A context's events are "above the background" when the Poisson upper tail is below this ... */
    static final double EXCESS_P = 0.001;
    /** ... and it has more than this many times the expected events. */
    static final double EXCESS_RATIO = 1.5;
    private static final int MAX_ROUNDS = 20;

    /**
     * The campaign's background.
     *
     * @param ratePerNs events per ns of CPU time (NaN without sensitive exposure)
     * @param sizes sorted excess times of the sensitive pairs with an event (ns of window time)
     * @param meanSize mean time of one event (ns): the sizes' total over the events the rate implies
     *     behind them (a pair hit twice shows both)
     * @param exposureNs the sensitive exposure behind the rate
     * @param excluded contexts left out as above the background
     */
    record Background(double ratePerNs, double[] sizes, double meanSize, double exposureNs,
            List<String> excluded) {
        /** @return the median excess time of a hit pair (ns), NaN without events */
        double medianSize() {
            return sizes.length == 0 ? Double.NaN : Select.median(sizes.clone());
        }

        /** @return the sensitive pairs with an event behind the background */
        int events() {
            return sizes.length;
        }

        /** @return the share of background events of at least {@code d} ns */
        double survival(double d) {
            if (sizes.length == 0) {
                return 0;
            }
            int i = Arrays.binarySearch(sizes, d);
            if (i < 0) {
                i = -i - 1;
            } else {
                while (i > 0 && sizes[i - 1] == d) {
                    i--;
                }
            }
            return (sizes.length - i) / (double) sizes.length;
        }
    }

    /**
     * A context against the background.
     *
     * @param observed detected events
     * @param expected events the background predicts for its pairs
     * @param pExcess {@code P(X >= observed)} for a Poisson variable with that mean
     * @param detectableShare the share of the context's expected interrupts (of any size) that the
     *     bisquare rejects; the rest may stay in the estimate
     */
    record ContextEvents(int observed, double expected, double pExcess, double detectableShare) {
        /** @return whether the context has significantly and materially more events than the background */
        boolean aboveBackground() {
            return pExcess < EXCESS_P && observed > EXCESS_RATIO * expected;
        }
    }

    private Interrupts() {}

    /**
     * Estimates the background from the analyses of a campaign (contexts whose fit failed do not count).
     *
     * @param analyses the contexts
     * @return the background
     */
    static Background background(List<ContextAnalysis> analyses) {
        boolean[] in = new boolean[analyses.size()];
        for (int k = 0; k < in.length; k++) {
            in[k] = analyses.get(k).fit().ok();
        }
        Background b = pool(analyses, in);
        for (int round = 0; round < MAX_ROUNDS; round++) {
            boolean changed = false;
            for (int k = 0; k < in.length; k++) {
                if (!analyses.get(k).fit().ok()) {
                    continue;
                }
                boolean keep = !compare(analyses.get(k), b).aboveBackground();
                changed |= keep != in[k];
                in[k] = keep;
            }
            if (!changed) {
                break;
            }
            b = pool(analyses, in);
        }
        return b;
    }

    private static Background pool(List<ContextAnalysis> analyses, boolean[] in) {
        List<String> excluded = new ArrayList<>();
        int n = 0;
        for (int k = 0; k < in.length; k++) {
            if (in[k]) {
                for (boolean s : analyses.get(k).events().sensitive()) {
                    n += s ? 1 : 0;
                }
            } else if (analyses.get(k).fit().ok()) {
                excluded.add(analyses.get(k).data().context());
            }
        }
        double[] exposure = new double[n];
        boolean[] hit = new boolean[n];
        double[] size = new double[n];
        int m = 0;
        for (int k = 0; k < in.length; k++) {
            if (!in[k]) {
                continue;
            }
            ContextAnalysis a = analyses.get(k);
            ContextAnalysis.Events e = a.events();
            for (int i = 0; i < e.sensitive().length; i++) {
                if (e.sensitive()[i]) {
                    exposure[m] = cleanExposure(a, i);
                    hit[m] = e.event()[i];
                    size[m++] = e.size()[i];
                }
            }
        }
        double total = 0;
        int hits = 0;
        for (int i = 0; i < n; i++) {
            total += exposure[i];
            hits += hit[i] ? 1 : 0;
        }
        double rate = total > 0 ? rate(exposure, hit, hits, total) : Double.NaN;
        double[] sizes = new double[hits];
        double sum = 0;
        double events = 0;
        for (int i = 0, j = 0; i < n; i++) {
            if (hit[i]) {
                sizes[j++] = size[i];
                sum += size[i];
                double x = rate * exposure[i];
                events += x > 1e-12 ? x / -Math.expm1(-x) : 1;
            }
        }
        Arrays.sort(sizes);
        return new Background(rate, sizes, hits > 0 ? sum / events : Double.NaN, total, excluded);
    }

    /** The exposure of pair i without its detected event's time: the time in which an event could start. */
    static double cleanExposure(ContextAnalysis a, int i) {
        return Math.max(0, a.data().exposure()[i] - a.events().size()[i]);
    }

    /**
     * The maximum-likelihood rate of {@code P(hit) = 1 - exp(-lambda E)}: the root of the decreasing
     * score {@code sum_hit E/(exp(lambda E) - 1) - sum_miss E}, by bisection on a log scale.
     */
    private static double rate(double[] exposure, boolean[] hit, int hits, double total) {
        if (hits == 0) {
            return 0;
        }
        double missExposure = 0;
        for (int i = 0; i < exposure.length; i++) {
            missExposure += hit[i] ? 0 : exposure[i];
        }
        if (!(missExposure > 0)) {
            return Double.POSITIVE_INFINITY;
        }
        double crude = hits / total;
        double lo = crude / 4;
        double hi = crude * 64;
        for (int it = 0; it < 200 && hi - lo > 1e-12 * hi; it++) {
            double mid = Math.sqrt(lo * hi);
            double score = -missExposure;
            for (int i = 0; i < exposure.length; i++) {
                if (hit[i]) {
                    double x = mid * exposure[i];
                    score += x > 1e-12 ? exposure[i] / Math.expm1(x) : 1 / mid;
                }
            }
            if (score > 0) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return Math.sqrt(lo * hi);
    }

    /**
     * A context's events against the background.
     *
     * @param a the context
     * @param b the background
     * @return its observed and expected counts
     */
    static ContextEvents compare(ContextAnalysis a, Background b) {
        ContextAnalysis.Events e = a.events();
        if (!a.fit().ok() || !(b.ratePerNs() >= 0) || Double.isInfinite(b.ratePerNs())) {
            return new ContextEvents(e.observed(), Double.NaN, Double.NaN, Double.NaN);
        }
        double any = 0;
        double detected = 0;
        for (int i = 0; i < e.event().length; i++) {
            double exposure = cleanExposure(a, i);
            any -= Math.expm1(-b.ratePerNs() * exposure);
            detected -= Math.expm1(-b.ratePerNs() * b.survival(e.threshold()[i]) * exposure);
        }
        return new ContextEvents(e.observed(), detected, Distributions.poissonUpperTail(e.observed(), detected),
                any > 0 ? detected / any : Double.NaN);
    }

    /**
     * The expected interrupt overhead of an instruction that costs {@code cost} ns: events per ns of
     * CPU time times the mean event time times the cost (0 for a cost at or below zero).
     *
     * @param b the background
     * @param cost the clean cost (ns per instruction)
     * @return ns per instruction
     */
    static double overhead(Background b, double cost) {
        return b.ratePerNs() * b.meanSize() * Math.max(0, cost);
    }
}
