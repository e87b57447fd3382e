package dev.splice.weigh.model;

/** Small dense symmetric positive-definite solves (covariate blocks of a handful of columns). */
final class Cholesky {
    private Cholesky() {}

    /**
     * Solves {@code A x = b} where the lower triangle of the row-major {@code m x m} matrix
     * {@code a} holds A (the upper triangle is ignored). {@code a} is overwritten by the factor.
     * Returns false when A is not numerically positive definite.
     */
    static boolean solveLowerStored(double[] a, double[] b, int m, double[] x) {
        for (int j = 0; j < m; j++) {
            double d = a[j * m + j];
            for (int q = 0; q < j; q++) {
                d -= a[j * m + q] * a[j * m + q];
            }
            if (!(d > 0)) {
                return false;
            }
            double root = Math.sqrt(d);
            a[j * m + j] = root;
            for (int l = j + 1; l < m; l++) {
                double v = a[l * m + j];
                for (int q = 0; q < j; q++) {
                    v -= a[l * m + q] * a[j * m + q];
                }
                a[l * m + j] = v / root;
            }
        }
        for (int j = 0; j < m; j++) {
            double v = b[j];
            for (int q = 0; q < j; q++) {
                v -= a[j * m + q] * x[q];
            }
            x[j] = v / a[j * m + j];
        }
        for (int j = m - 1; j >= 0; j--) {
            double v = x[j];
            for (int q = j + 1; q < m; q++) {
                v -= a[q * m + j] * x[q];
            }
            x[j] = v / a[j * m + j];
        }
        return true;
    }

    /** Inverse of a symmetric positive-definite matrix (full storage), or null. */
    static double[] inverse(double[] full, int m) {
        double[] inv = new double[m * m];
        double[] col = new double[m];
        double[] e = new double[m];
        for (int j = 0; j < m; j++) {
            double[] a = full.clone();
            java.util.Arrays.fill(e, 0);
            e[j] = 1;
            if (!solveLowerStored(a, e.clone(), m, col)) {
                return null;
            }
            for (int i = 0; i < m; i++) {
                inv[i * m + j] = col[i];
            }
        }
        return inv;
    }
}
