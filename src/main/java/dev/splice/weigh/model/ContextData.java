package dev.splice.weigh.model;

/**
 * The kept pairs of one context in model form. Covariates (see docs/weigh-model.md):
 * {@code O} = +1/2 for AB, -1/2 for BA; {@code D} = position - 1/2; {@code L} = ln(N / N0) with N0
 * the geometric mean of the context's distinct batch sizes; {@code Q} = translations / N (zero after
 * the contamination filter, so the fit drops it).
 *
 * @param y ns per target instruction, thread CPU time
 * @param guestY ns per target instruction by the guest clock (NaN where absent)
 * @param run campaign-wide run index of each pair
 * @param roundPos index of the pair's probe round within its run's round sequence
 * @param batchLevel index of the pair's batch size in {@code batches}
 * @param rowsByRunRound {@code [run][roundPos]} -> indices of this context's pairs there
 */
record ContextData(
        String context,
        String baseline,
        String key,
        double[] y,
        double[] guestY,
        int[] run,
        int[] roundPos,
        double[][] x,
        int[] batchLevel,
        int[] batches,
        int[][][] rowsByRunRound,
        int pairsRaw,
        int pairsRemovedTranslations,
        int abCount,
        int[] batchCounts) {
    static final int COVARIATES = 4;
    static final String[] COVARIATE_NAMES = {"order", "drift", "batch", "translation_rate"};

    int size() {
        return y.length;
    }
}
