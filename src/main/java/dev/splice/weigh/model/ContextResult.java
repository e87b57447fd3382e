package dev.splice.weigh.model;

import dev.splice.weigh.campaign.ContextWeight.Publication;
import dev.splice.weigh.campaign.Reason;
import java.util.List;

/**
 * The published view of one context.
 *
 * @param contrast the fitted contrast against the context's own baseline (ns per instruction)
 * @param estimate the absolute cost through the reference graph (= contrast for a zero reference):
 *     the marginal cost beta of {@code d = beta + alpha/N}
 * @param se standard error of the estimate from the run pseudo-values
 * @param ciLow simultaneous interval, lower end
 * @param weight the published weight: the estimate (0 only for a zero-cost-equivalent negative
 *     estimate whose band contains 0), null when not publishable
 * @param betaSe standard errors of the order, drift and window coefficients
 * @param events the context's interrupt events against the campaign's background
 * @param interruptOverheadNs expected interrupt time per instruction of this cost (ns), beside the clean weight
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
        Interrupts.ContextEvents events,
        double interruptOverheadNs,
        List<Reason> reasons) {
    /** @return the context key */
    String context() {
        return analysis.data().context();
    }

    /** @return whether every gate passed */
    boolean highQuality() {
        return reasons.isEmpty();
    }
}
