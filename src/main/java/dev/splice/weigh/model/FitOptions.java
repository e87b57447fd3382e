package dev.splice.weigh.model;

/**
 * How a Huber IRLS fit is computed. Both presets use the Huber tuning constant 1.345, a
 * least-squares starting point, the scale {@code median(|r|) / scaleConstant} (MAD about zero,
 * recomputed every iteration) and stop when the root-relative change of the residual vector
 * {@code sqrt(sum((r_old - r_new)^2) / sum(r_old^2))} is at most {@code tolerance}.
 *
 * @param k Huber tuning constant (delta)
 * @param scaleConstant divisor turning the median absolute residual into a normal-consistent scale
 * @param tolerance stopping threshold of the residual change
 * @param maxIterations the fit is "not converged" when the threshold is not met within this many
 */
public record FitOptions(double k, double scaleConstant, double tolerance, int maxIterations) {
    /** Huber's delta used throughout (95% efficiency at the normal). */
    static final double HUBER_K = 1.345;
    /** Exact normal quantile Phi^-1(0.75). */
    static final double NORMAL_MAD_CONSTANT = 0.6744897501960817;

    /** Splice's own defaults: exact MAD constant, tight tolerance, up to 100 iterations. */
    static final FitOptions SPLICE = new FitOptions(HUBER_K, NORMAL_MAD_CONSTANT, 1e-10, 100);
    /** MASS::rlm defaults (scale constant 0.6745, acc = 1e-4, maxit = 20). */
    static final FitOptions MASS = new FitOptions(HUBER_K, 0.6745, 1e-4, 20);

    FitOptions withTolerance(double t) {
        return new FitOptions(k, scaleConstant, t, maxIterations);
    }
}
