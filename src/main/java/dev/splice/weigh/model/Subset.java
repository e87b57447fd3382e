package dev.splice.weigh.model;

/** Builds regression designs from chosen rows of a context, relabelling runs compactly. */
final class Subset {
    private Subset() {}

    /** The design of rows {@code idx} whose run labels are {@code label[i]} (any ints >= 0, < labels). */
    static Design design(ContextData c, double[] y, int[] idx, int[] label, int labels, int[] levelOut) {
        int n = idx.length;
        int[] compact = new int[labels];
        java.util.Arrays.fill(compact, -1);
        int runs = 0;
        int[] run = new int[n];
        for (int i = 0; i < n; i++) {
            int l = label[i];
            if (compact[l] < 0) {
                compact[l] = runs++;
            }
            run[i] = compact[l];
        }
        double[] yy = new double[n];
        double[][] x = new double[ContextData.COVARIATES][n];
        for (int i = 0; i < n; i++) {
            int s = idx[i];
            yy[i] = y[s];
            for (int j = 0; j < ContextData.COVARIATES; j++) {
                x[j][i] = c.x()[j][s];
            }
            levelOut[i] = c.batchLevel()[s];
        }
        return new Design(yy, run, runs, x, null);
    }

    /** All rows, labelled by their campaign run. */
    static Design all(ContextData c, double[] y, int campaignRuns, int[] levelOut) {
        int n = c.size();
        int[] idx = new int[n];
        for (int i = 0; i < n; i++) {
            idx[i] = i;
        }
        return design(c, y, idx, c.run(), campaignRuns, levelOut);
    }

    /** The rows of one campaign run. */
    static int[] rowsOfRun(ContextData c, int run) {
        return java.util.stream.IntStream.range(0, c.size()).filter(i -> c.run()[i] == run).toArray();
    }
}
