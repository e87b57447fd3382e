package dev.splice.weigh.model;

/**
 * The kept pairs of one context in model form. Covariates (see docs/weigh-model.md):
 * {@code O} = +1/2 for AB, -1/2 for BA; {@code D} = position - 1/2; {@code W} = 1/N, so that
 * {@code d = beta + alpha / N}: the intercept is the marginal cost per instruction and the coefficient
 * of {@code W} the fixed cost per window (ns); {@code Q} = translations / N (zero after the
 * contamination filter, so the fit drops it).
 *
 * @param y ns per target instruction, thread CPU time
 * @param guestY ns per target instruction by the guest clock (NaN where absent)
 * @param exposure thread CPU time of both windows of the pair (ns): the time an interrupt can hit
 * @param run campaign-wide run index of each pair
 * @param roundPos index of the pair's probe round within its run's round sequence
 * @param batchLevel index of the pair's batch size in {@code batches} (ascending)
 * @param rowsByRunRound {@code [run][roundPos]} -> indices of this context's pairs there
 * @param pairsRemovedBurnIn pairs without translations removed because they lie in a run's burn-in
 */
record ContextData(
        String context,
        String baseline,
        String key,
        double[] y,
        double[] guestY,
        double[] exposure,
        int[] run,
        int[] roundPos,
        double[][] x,
        int[] batchLevel,
        int[] batches,
        int[][][] rowsByRunRound,
        int pairsRaw,
        int pairsRemovedTranslations,
        int pairsRemovedBurnIn,
        int abCount,
        int[] batchCounts) {
    /** Number of covariate columns in {@link #x}. */
    static final int COVARIATES = 4;
    /** Index of the window covariate {@code 1/N} in {@link #x}. */
    static final int WINDOW = 2;
    /** Names of the covariates in weights.json's {@code effects}. */
    static final String[] COVARIATE_NAMES = {"order", "drift", "window", "translation_rate"};

    /** @return the number of kept pairs */
    int size() {
        return y.length;
    }

    /**
     * @param i a pair
     * @return its batch size (target instructions per window)
     */
    int batch(int i) {
        return batches[batchLevel[i]];
    }
}
