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
