package dev.splice.weigh.model;

/**
 * The data of one regression {@code y_i = mu_run(i) + sum_j beta_j x_ji + e_i}: one free intercept
 * per run (runs numbered 0..runs-1, each present at least once) and a few covariate columns.
 * {@code theta} is the mean of the run intercepts, i.e. the intercept under sum-to-zero run coding.
 *
 * @param x covariate columns, {@code x[j][i]}
 * @param priorWeights inverse-variance weights (heteroscedasticity), or {@code null} for all ones
 */
record Design(double[] y, int[] run, int runs, double[][] x, double[] priorWeights) {
    int size() {
        return y.length;
    }

    double prior(int i) {
        return priorWeights == null ? 1.0 : priorWeights[i];
    }

    Design withPriorWeights(double[] h) {
        return new Design(y, run, runs, x, h);
    }
}
