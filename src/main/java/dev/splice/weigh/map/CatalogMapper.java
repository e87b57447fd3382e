package dev.splice.weigh.map;

import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.ContextWeight;
import dev.splice.weigh.campaign.Mapping;
import dev.splice.weigh.campaign.Mapping.Status;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Maps context weights onto catalog classes with the publication policies of seed 003 section 12:
 * restricted classes (CSR, privileged, trap, cache-block) are never published as general weights;
 * a class with one context is strict when that context is high-confidence and exploratory (labelled
 * so) when it is not; several contexts that are equivalent give their mean (strict only when all
 * are high-confidence); several non-equivalent contexts are context-dependent and get no number.
 * Contexts that match no class are orphans and are reported.
 */
public final class CatalogMapper {
    /** Contexts of one class are equivalent when their estimates spread by at most max(abs, rel * mean). */
    static final double EQUIVALENCE_ABS_NS = 0.15;
    static final double EQUIVALENCE_REL = 0.10;
    /** Extensions whose classes are restricted. */
    static final Set<String> RESTRICTED_EXTENSIONS = Set.of("zicsr", "priv", "system", "zicbom", "zicboz", "zicbop");
    /** Mnemonics (first key component, after "c." for compressed forms) of restricted classes. */
    static final Set<String> RESTRICTED_MNEMONICS = Set.of("csrrw", "csrrs", "csrrc", "csrrwi", "csrrsi", "csrrci",
            "csrr", "csrw", "csrs", "csrc", "csrwi", "csrsi", "csrci", "rdtime", "rdcycle", "rdinstret", "rdtimeh",
            "rdcycleh", "rdinstreth", "frcsr", "fscsr", "frrm", "fsrm", "fsrmi", "frflags", "fsflags", "fsflagsi",
            "ecall", "ebreak", "mret", "sret", "uret", "dret", "wfi", "sfence", "hfence", "hinval", "sinval", "cbo",
            "prefetch");

    private CatalogMapper() {}

    static boolean restricted(Catalog.Entry e) {
        if (e.extension() != null && RESTRICTED_EXTENSIONS.contains(e.extension().toLowerCase(Locale.ROOT))) {
            return true;
        }
        String[] parts = e.key().split("\\.");
        String mnemonic = parts[0].equals("c") && parts.length > 1 ? parts[1] : parts[0];
        return RESTRICTED_MNEMONICS.contains(mnemonic);
    }

    /**
     * Puts weights on a catalog's classes. A context belongs to the class its {@code key} names, or
     * else to the longest class key that equals the context key or prefixes it at a dot.
     *
     * @param weights the contexts of a {@code weights.json}
     * @param catalog the catalog
     * @return one class mapping per catalog entry, and the orphan contexts
     */
    public static Mapping map(List<ContextWeight> weights, Catalog catalog) {
        Map<String, List<ContextWeight>> byClass = new LinkedHashMap<>();
        for (Catalog.Entry e : catalog.entries()) {
            byClass.put(e.key(), new ArrayList<>());
        }
        List<Mapping.Orphan> orphans = new ArrayList<>();
        for (ContextWeight w : weights) {
            String cls = classOf(w, byClass.keySet());
            if (cls == null) {
                orphans.add(new Mapping.Orphan(w.context(), w.weightNs()));
            } else {
                byClass.get(cls).add(w);
            }
        }
        List<Mapping.ClassMapping> classes = new ArrayList<>();
        for (Catalog.Entry e : catalog.entries()) {
            classes.add(decide(e, byClass.get(e.key())));
        }
        return new Mapping(classes, orphans);
    }

    /** The explicit key, else the longest class key that equals the context or prefixes it at a dot. */
    static String classOf(ContextWeight w, Set<String> keys) {
        if (w.key() != null) {
            return keys.contains(w.key()) ? w.key() : null;
        }
        String best = null;
        for (String k : keys) {
            if ((w.context().equals(k) || w.context().startsWith(k + ".")) && (best == null || k.length() > best.length())) {
                best = k;
            }
        }
        return best;
    }

    /**
     * Whether a context was measured in system mode in a privilege state its key names ({@code
     * .smode}, {@code .mmode}: docs/weigh-system.md): its weight is what the instruction costs in that
     * state, so a restricted class that only such contexts map is published as measured.
     */
    static boolean measuredInPrivilegeState(String context) {
        return context.endsWith(".smode") || context.endsWith(".mmode");
    }

    private static Mapping.ClassMapping decide(Catalog.Entry e, List<ContextWeight> ws) {
        List<String> names = ws.stream().map(ContextWeight::context).toList();
        boolean privileged = !ws.isEmpty() && ws.stream().allMatch(w -> measuredInPrivilegeState(w.context()));
        if (restricted(e) && !privileged) {
            return new Mapping.ClassMapping(e, Status.RESTRICTED, null, null, null, null, names);
        }
        if (ws.isEmpty()) {
            return new Mapping.ClassMapping(e, Status.UNMEASURED, null, null, null, null, names);
        }
        if (ws.stream().anyMatch(w -> w.weightNs() == null)) {
            return new Mapping.ClassMapping(e, Status.UNPUBLISHED, null, null, null, null, names);
        }
        double min = Double.POSITIVE_INFINITY;
        double max = Double.NEGATIVE_INFINITY;
        double sum = 0;
        double low = Double.POSITIVE_INFINITY;
        double high = Double.NEGATIVE_INFINITY;
        for (ContextWeight w : ws) {
            min = Math.min(min, w.weightNs());
            max = Math.max(max, w.weightNs());
            sum += w.weightNs();
            low = Math.min(low, w.ciLowNs());
            high = Math.max(high, w.ciHighNs());
        }
        double mean = sum / ws.size();
        boolean overlap = ws.stream().allMatch(a -> ws.stream().allMatch(b -> a.ciLowNs() <= b.ciHighNs()
                && b.ciLowNs() <= a.ciHighNs()));
        if (ws.size() > 1 && !(overlap && max - min <= Math.max(EQUIVALENCE_ABS_NS, EQUIVALENCE_REL * Math.abs(mean)))) {
            return new Mapping.ClassMapping(e, Status.CONTEXT_DEPENDENT, null, null, null, null, names);
        }
        boolean allHigh = ws.stream().allMatch(ContextWeight::highQuality);
        return new Mapping.ClassMapping(e, allHigh ? Status.STRICT : Status.EXPLORATORY, allHigh ? mean : null, mean,
                finite(low), finite(high), names);
    }

    private static Double finite(double v) {
        return Double.isFinite(v) ? v : null;
    }
}
