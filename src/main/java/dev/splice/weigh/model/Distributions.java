package dev.splice.weigh.model;

/**
 * The few distribution functions the model needs: Student's t (two-sided tail and its inverse) and
 * the Poisson upper tail, from the regularized incomplete beta and gamma functions (continued
 * fractions and series as in Press et al., Numerical Recipes, sections 6.2 and 6.4). Checked against
 * R in {@code DistributionsTest}: tails to 1e-11 relative, critical values to 1e-9 (3e-10 at p = 1e-7).
 */
final class Distributions {
    private static final double EPS = 1e-15;
    private static final double TINY = 1e-300;
    private static final int MAX_TERMS = 10_000;
    private static final double[] LANCZOS = {0.99999999999980993, 676.5203681218851, -1259.1392167224028,
        771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6,
        1.5056327351493116e-7};

    private Distributions() {}

    /** {@code P(|T| > t)} for Student's t with {@code df} degrees of freedom ({@code t >= 0}). */
    static double studentTwoSidedTail(double t, double df) {
        if (!(t > 0)) {
            return 1.0;
        }
        if (Double.isInfinite(t)) {
            return 0.0;
        }
        return regularizedBeta(df / (df + t * t), df / 2, 0.5);
    }

    /** The {@code t > 0} with {@code P(|T| > t) = p} (0 < p <= 1): the two-sided critical value. */
    static double studentCritical(double p, double df) {
        if (!(p > 0 && p <= 1) || !(df > 0)) {
            return Double.NaN;
        }
        double lo = 0;
        double hi = 1;
        while (studentTwoSidedTail(hi, df) > p) {
            lo = hi;
            hi *= 2;
            if (hi > 1e300) {
                return Double.POSITIVE_INFINITY;
            }
        }
        // Bisection to the last bit: about 60 to 1100 steps of a cheap continued fraction.
        for (int i = 0; i < 2000 && hi - lo > 1e-14 * hi; i++) {
            double mid = 0.5 * (lo + hi);
            if (studentTwoSidedTail(mid, df) > p) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return 0.5 * (lo + hi);
    }

    /** {@code P(X >= n)} for a Poisson variable of mean {@code mu}. */
    static double poissonUpperTail(int n, double mu) {
        if (n <= 0) {
            return 1.0;
        }
        if (!(mu > 0)) {
            return 0.0;
        }
        return regularizedGammaP(n, mu);
    }

    /** The regularized incomplete beta function {@code I_x(a, b)}. */
    static double regularizedBeta(double x, double a, double b) {
        if (x <= 0) {
            return 0.0;
        }
        if (x >= 1) {
            return 1.0;
        }
        double front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
        if (x < (a + 1) / (a + b + 2)) {
            return front * betaFraction(x, a, b) / a;
        }
        return 1 - front * betaFraction(1 - x, b, a) / b;
    }

    private static double betaFraction(double x, double a, double b) {
        double qab = a + b;
        double qap = a + 1;
        double qam = a - 1;
        double c = 1;
        double d = 1 - qab * x / qap;
        d = Math.abs(d) < TINY ? TINY : d;
        d = 1 / d;
        double h = d;
        for (int m = 1; m <= MAX_TERMS; m++) {
            int m2 = 2 * m;
            double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
            d = 1 + aa * d;
            d = Math.abs(d) < TINY ? TINY : d;
            c = 1 + aa / c;
            c = Math.abs(c) < TINY ? TINY : c;
            d = 1 / d;
            h *= d * c;
            aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
            d = 1 + aa * d;
            d = Math.abs(d) < TINY ? TINY : d;
            c = 1 + aa / c;
            c = Math.abs(c) < TINY ? TINY : c;
            d = 1 / d;
            double del = d * c;
            h *= del;
            if (Math.abs(del - 1) < EPS) {
                break;
            }
        }
        return h;
    }

    /** The regularized lower incomplete gamma function {@code P(a, x)}. */
    static double regularizedGammaP(double a, double x) {
        if (x <= 0) {
            return 0.0;
        }
        double logFront = a * Math.log(x) - x - logGamma(a);
        if (x < a + 1) {
            double ap = a;
            double sum = 1 / a;
            double del = sum;
            for (int n = 0; n < MAX_TERMS; n++) {
                ap++;
                del *= x / ap;
                sum += del;
                if (Math.abs(del) < Math.abs(sum) * EPS) {
                    break;
                }
            }
            return sum * Math.exp(logFront);
        }
        double b = x + 1 - a;
        double c = 1 / TINY;
        double d = 1 / b;
        double h = d;
        for (int i = 1; i <= MAX_TERMS; i++) {
            double an = -i * (i - a);
            b += 2;
            d = an * d + b;
            d = Math.abs(d) < TINY ? TINY : d;
            c = b + an / c;
            c = Math.abs(c) < TINY ? TINY : c;
            d = 1 / d;
            double del = d * c;
            h *= del;
            if (Math.abs(del - 1) < EPS) {
                break;
            }
        }
        return 1 - Math.exp(logFront) * h;
    }

    /** {@code ln Gamma(x)} for {@code x > 0} (Lanczos, g = 7, 9 terms; about 1e-15 relative). */
    static double logGamma(double x) {
        if (x < 0.5) {
            return Math.log(Math.PI / Math.abs(Math.sin(Math.PI * x))) - logGamma(1 - x);
        }
        double[] c = LANCZOS;
        double z = x - 1;
        double s = c[0];
        for (int i = 1; i < 9; i++) {
            s += c[i] / (z + i);
        }
        double t = z + 7.5;
        return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(s);
    }
}
