package dev.splice.weigh.model;

import dev.splice.weigh.campaign.ContextWeight.Publication;
import dev.splice.weigh.campaign.Reason;
import java.util.List;

/**
 * The published view of one context.
 *
 * @param contrast the fitted contrast against the context's own baseline (ns per instruction)
 * @param estimate the absolute cost through the reference graph (= contrast for a zero reference)
 * @param se bootstrap standard deviation of the estimate
 * @param ciLow simultaneous interval, lower end
 * @param weight the published weight: the estimate, 0 when zero-cost-equivalent, null when not publishable
 * @param betaSe bootstrap SDs of the order, drift and batch coefficients
 */
record ContextResult(
        ContextAnalysis analysis,
        ReferenceGraph.Resolution resolution,
        List<String> referenceChain,
        double contrast,
        double estimate,
        double se,
        double ciLow,
        double ciHigh,
        Double weight,
        boolean zeroCostEquivalent,
        Publication publication,
        double[] betaSe,
        double widthRatio,
        List<Reason> reasons) {
    String context() {
        return analysis.data().context();
    }

    boolean highQuality() {
        return reasons.isEmpty();
    }
}
