package dev.splice.weigh.model;

/** Order statistics by in-place selection (Hoare's quickselect), linear time on average. */
final class Select {
    private Select() {}

    /** The median (mean of the two middle values for even length); reorders {@code v}. */
    static double median(double[] v) {
        int n = v.length;
        if (n == 0) {
            return Double.NaN;
        }
        int hi = n / 2;
        double upper = kth(v, hi, n);
        if ((n & 1) == 1) {
            return upper;
        }
        double lower = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < hi; i++) {
            lower = Math.max(lower, v[i]);
        }
        return (lower + upper) / 2;
    }

    /**
     * The median of non-negative values expected near {@code guess} (the previous IRLS iteration's):
     * one pass counts the values below {@code guess * (1 - BRACKET)} and copies those inside the
     * bracket into {@code scratch}; when the middle order statistics fall inside, only the copied
     * few are selected. Otherwise, or without a usable guess, it is {@link #median}. Exact either way;
     * {@code v} is left unchanged only when the bracket succeeds.
     */
    static double medianNear(double[] v, double guess, double[] scratch) {
        int n = v.length;
        if (!(guess > 0) || n < 8) {
            return median(v);
        }
        double lo = guess * (1 - BRACKET);
        double hi = guess * (1 + BRACKET);
        int below = 0;
        int inside = 0;
        for (double x : v) {
            if (x < lo) {
                below++;
            } else if (x <= hi) {
                scratch[inside++] = x;
            }
        }
        int upper = n / 2;
        int lower = (n & 1) == 1 ? upper : upper - 1;
        if (lower < below || upper >= below + inside) {
            return median(v);
        }
        double u = kth(scratch, upper - below, inside);
        if (lower == upper) {
            return u;
        }
        double l = Double.NEGATIVE_INFINITY;
        for (int i = 0; i < upper - below; i++) {
            l = Math.max(l, scratch[i]);
        }
        return (l + u) / 2;
    }

    /** Relative half-width of the bracket of {@link #medianNear}. */
    static final double BRACKET = 0.12;

    /** The k-th smallest (0-based) of the first n values; afterwards v[0..k) <= v[k] <= v(k..n). */
    static double kth(double[] v, int k, int n) {
        int lo = 0;
        int hi = n - 1;
        while (hi > lo) {
            int mid = (lo + hi) >>> 1;
            // Median of three as the pivot keeps sorted and constant inputs linear.
            double p = med3(v[lo], v[mid], v[hi]);
            int i = lo;
            int j = hi;
            while (i <= j) {
                while (v[i] < p) {
                    i++;
                }
                while (v[j] > p) {
                    j--;
                }
                if (i <= j) {
                    double tmp = v[i];
                    v[i] = v[j];
                    v[j] = tmp;
                    i++;
                    j--;
                }
            }
            if (k <= j) {
                hi = j;
            } else if (k >= i) {
                lo = i;
            } else {
                return v[k];
            }
        }
        return v[k];
    }

    private static double med3(double a, double b, double c) {
        return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
    }
}
