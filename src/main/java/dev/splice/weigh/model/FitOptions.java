package dev.splice.weigh.model;

/**
 * How a robust IRLS fit is computed. Every preset uses a least-squares starting point (unless a
 * start is given), the scale {@code median(|r|) / scaleConstant} (MAD about zero, recomputed every
 * iteration, as {@code MASS::rlm} does) and stops when the root-relative change of the residual
 * vector {@code sqrt(sum((r_old - r_new)^2) / sum(r_old^2))} is at most {@code tolerance}.
 *
 * @param psi the psi function (Huber's monotone one or Tukey's redescending bisquare)
 * @param k tuning constant of {@code psi} (Huber's delta, or the bisquare's rejection point)
 * @param scaleConstant divisor turning the median absolute residual into a normal-consistent scale
 * @param tolerance stopping threshold of the residual change
 * @param maxIterations the fit is "not converged" when the threshold is not met within this many
 */
public record FitOptions(Psi psi, double k, double scaleConstant, double tolerance, int maxIterations) {
    /** Huber's delta used throughout (95% efficiency at the normal). */
    static final double HUBER_K = 1.345;
    /** Tukey's bisquare rejection point (95% efficiency at the normal; {@code MASS::psi.bisquare}'s default). */
    static final double BISQUARE_C = 4.685;
    /** Exact normal quantile Phi^-1(0.75). */
    static final double NORMAL_MAD_CONSTANT = 0.6744897501960817;

    /** Splice's own defaults: Huber, exact MAD constant, tight tolerance, up to 100 iterations. */
    static final FitOptions SPLICE = new FitOptions(Psi.HUBER, HUBER_K, NORMAL_MAD_CONSTANT, 1e-10, 100);
    /** MASS::rlm defaults (psi.huber, scale constant 0.6745, acc = 1e-4, maxit = 20). */
    static final FitOptions MASS = new FitOptions(Psi.HUBER, HUBER_K, 0.6745, 1e-4, 20);

    /** The psi functions of the IRLS: weight {@code psi(u)/u}, and {@code psi}, {@code psi'} for variances. */
    enum Psi {
        /** {@code psi(u) = max(-k, min(k, u))}. */
        HUBER,
        /** {@code psi(u) = u (1 - (u/k)^2)^2} for {@code |u| < k}, else 0: pairs beyond k get no weight. */
        BISQUARE;

        /**
         * @param a the size {@code |u|} of a standardized residual
         * @param k the tuning constant (in the same units as {@code a})
         * @return the IRLS weight {@code psi(u)/u}
         */
        double weight(double a, double k) {
            if (this == HUBER) {
                return a <= k ? 1.0 : k / a;
            }
            if (a >= k) {
                return 0.0;
            }
            double q = a / k;
            double t = 1 - q * q;
            return t * t;
        }

        /**
         * @param u a standardized residual
         * @param k the tuning constant
         * @return {@code psi(u)}
         */
        double psi(double u, double k) {
            return u * weight(Math.abs(u), k);
        }

        /**
         * @param u a standardized residual
         * @param k the tuning constant
         * @return {@code psi'(u)}
         */
        double derivative(double u, double k) {
            double a = Math.abs(u);
            if (this == HUBER) {
                return a <= k ? 1.0 : 0.0;
            }
            if (a >= k) {
                return 0.0;
            }
            double q2 = (a / k) * (a / k);
            return (1 - q2) * (1 - 5 * q2);
        }
    }

    /**
     * @param t the stopping threshold
     * @return the same options with that threshold
     */
    FitOptions withTolerance(double t) {
        return new FitOptions(psi, k, scaleConstant, t, maxIterations);
    }

    /** @return the same scale, tolerance and iteration limit with Tukey's bisquare at {@link #BISQUARE_C} */
    FitOptions bisquare() {
        return new FitOptions(Psi.BISQUARE, BISQUARE_C, scaleConstant, tolerance, maxIterations);
    }
}
