package dev.splice.weigh.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The control-reference graph: each context points at its baseline. A baseline that is not a
 * measured context (a nop kernel of the same shape) is a zero reference; a baseline that is a
 * measured context adds that context's absolute cost. Cycles, references to contexts the campaign
 * meant to measure but has no pairs for, and contexts naming several baselines are unidentifiable:
 * they get an error, never a guess.
 */
final class ReferenceGraph {
    private ReferenceGraph() {}

    /**
     * @param chain indices of the contexts whose contrasts add up to the absolute cost, the context
     *     itself first (empty when unidentifiable)
     * @param zeroReference the baseline key at the end of the chain
     * @param error why the absolute cost is unidentifiable, or null
     */
    record Resolution(List<Integer> chain, String zeroReference, String error) {
        boolean identifiable() {
            return error == null;
        }
    }

    static List<Resolution> resolve(List<ContextData> contexts, Set<String> expected) {
        Map<String, Integer> index = new HashMap<>();
        for (int k = 0; k < contexts.size(); k++) {
            index.put(contexts.get(k).context(), k);
        }
        List<Resolution> out = new ArrayList<>();
        for (int k = 0; k < contexts.size(); k++) {
            out.add(resolve(k, contexts, index, expected));
        }
        return out;
    }

    private static Resolution resolve(int k, List<ContextData> contexts, Map<String, Integer> index, Set<String> expected) {
        List<Integer> chain = new ArrayList<>();
        List<String> path = new ArrayList<>();
        int cur = k;
        while (true) {
            ContextData c = contexts.get(cur);
            chain.add(cur);
            path.add(c.context());
            String b = c.baseline();
            if (b.contains("|")) {
                return new Resolution(List.of(), null, "ambiguous reference: context '" + c.context()
                        + "' names several baselines (" + b.replace("|", ", ") + ")");
            }
            Integer next = index.get(b);
            if (next == null) {
                if (expected.contains(b)) {
                    return new Resolution(List.of(), null, "absent reference: baseline '" + b + "' of context '"
                            + c.context() + "' is a context the campaign should measure but has no pairs");
                }
                return new Resolution(List.copyOf(chain), b, null);
            }
            if (chain.contains(next)) {
                path.add(b);
                return new Resolution(List.of(), null, "reference cycle: " + String.join(" -> ", path));
            }
            cur = next;
        }
    }
}
