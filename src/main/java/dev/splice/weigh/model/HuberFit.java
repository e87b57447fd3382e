package dev.splice.weigh.model;

/**
 * Result of {@link HuberRegression#fit} (Huber's or the bisquare psi, as {@link FitOptions#psi} chose).
 *
 * @param theta mean of the run intercepts (NaN when the fit failed)
 * @param runIntercepts {@code mu_r}
 * @param beta covariate coefficients; 0 for a column dropped as collinear
 * @param active which covariate columns were estimable
 * @param scale final robust scale of the (prior-weight transformed) residuals
 * @param huberWeights the robust weights {@code psi(u)/u} of the final weighted fit (Huber: {@code min(1, k/|u|)})
 * @param residuals untransformed residuals {@code y - fitted}
 * @param failure why the fit failed, or {@code null}
 */
record HuberFit(double theta, double[] runIntercepts, double[] beta, boolean[] active, double scale,
        double[] huberWeights, double[] residuals, boolean converged, int iterations, String failure) {
    /** @return whether the fit succeeded */
    boolean ok() {
        return failure == null;
    }

    /** @return the indices of the estimable covariate columns, in order */
    int[] activeColumns() {
        int[] cols = new int[active.length];
        int m = 0;
        for (int j = 0; j < active.length; j++) {
            if (active[j]) {
                cols[m++] = j;
            }
        }
        return java.util.Arrays.copyOf(cols, m);
    }
}
