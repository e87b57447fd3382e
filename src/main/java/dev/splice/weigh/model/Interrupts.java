package dev.splice.weigh.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The campaign's background of interrupt events and each context's share of it. Host interrupts
 * arrive at a steady rate per unit of CPU time and add tens of microseconds to the window they hit,
 * so the chance that a pair is hit grows with its exposure (the CPU time of its two windows).
 *
 * <p>Background: the rate {@code lambda} = events / exposure and the event sizes, from the
 * <em>sensitive</em> pairs (where every event of at least {@link ContextAnalysis#EVENT_MIN_NS} is
 * detected), pooled over the contexts whose own counts agree with it: a context whose count is
 * significantly above its expectation is left out and the background recomputed, until no context
 * changes side. A context expects {@code lambda sum_i E_i S(D_i)} events, with {@code E_i} the
 * exposure of pair i, {@code D_i} its detection threshold and {@code S} the share of background
 * events at least that large.
 */
public final class Interrupts {
    /** A context's events are "above the background" when the Poisson upper tail is below this ... */
    public static final double EXCESS_P = 0.001;
    /** ... and it has more than this many times the expected events. */
    public static final double EXCESS_RATIO = 2.0;
    private static final int MAX_ROUNDS = 20;

    /**
     * The campaign's background.
     *
     * @param ratePerNs events per ns of CPU time (NaN without sensitive exposure)
     * @param sizes sorted sizes of the background's sensitive events (ns of window time)
     * @param exposureNs the sensitive exposure behind the rate
     * @param excluded contexts left out as above the background
     */
    public record Background(double ratePerNs, double[] sizes, double exposureNs, List<String> excluded) {
        /** @return the mean event size (ns), NaN without events */
        public double meanSize() {
            return sizes.length == 0 ? Double.NaN : Arrays.stream(sizes).average().orElse(Double.NaN);
        }

        /** @return the median event size (ns), NaN without events */
        public double medianSize() {
            return sizes.length == 0 ? Double.NaN : Select.median(sizes.clone());
        }

        /** @return the events the background has */
        public int events() {
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
     * @param detectableShare expected detected events / expected events of any size: the share of the
     *     context's interrupts the bisquare rejects (the rest may stay in the estimate)
     */
    public record ContextEvents(int observed, double expected, double pExcess, double detectableShare) {
        /** @return whether the context has significantly and materially more events than the background */
        public boolean aboveBackground() {
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
    public static Background background(List<ContextAnalysis> analyses) {
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
        double exposure = 0;
        List<double[]> sizes = new ArrayList<>();
        List<String> excluded = new ArrayList<>();
        int count = 0;
        for (int k = 0; k < in.length; k++) {
            ContextAnalysis a = analyses.get(k);
            if (!in[k]) {
                if (a.fit().ok()) {
                    excluded.add(a.data().context());
                }
                continue;
            }
            exposure += a.events().sensitiveExposure();
            sizes.add(a.events().sensitiveSizes());
            count += a.events().sensitiveSizes().length;
        }
        double[] all = new double[count];
        int f = 0;
        for (double[] s : sizes) {
            System.arraycopy(s, 0, all, f, s.length);
            f += s.length;
        }
        Arrays.sort(all);
        return new Background(exposure > 0 ? count / exposure : Double.NaN, all, exposure, excluded);
    }

    /**
     * A context's events against the background.
     *
     * @param a the context
     * @param b the background
     * @return its observed and expected counts
     */
    public static ContextEvents compare(ContextAnalysis a, Background b) {
        ContextAnalysis.Events e = a.events();
        if (!a.fit().ok() || !Double.isFinite(b.ratePerNs())) {
            return new ContextEvents(e.observed(), Double.NaN, Double.NaN, Double.NaN);
        }
        double any = 0;
        double detected = 0;
        double[] exposure = a.data().exposure();
        for (int i = 0; i < exposure.length; i++) {
            any += exposure[i];
            detected += exposure[i] * b.survival(e.threshold()[i]);
        }
        double expected = b.ratePerNs() * detected;
        return new ContextEvents(e.observed(), expected, Distributions.poissonUpperTail(e.observed(), expected),
                any > 0 ? detected / any : Double.NaN);
    }

    /**
     * The expected interrupt overhead of an instruction that costs {@code cost} ns: events per ns of
     * CPU time times their mean size times the cost (0 for a cost at or below zero).
     *
     * @param b the background
     * @param cost the clean cost (ns per instruction)
     * @return ns per instruction
     */
    public static double overhead(Background b, double cost) {
        return b.ratePerNs() * b.meanSize() * Math.max(0, cost);
    }
}
