package dev.splice.weigh.map;

import dev.splice.base.BadInputException;
import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.ContextWeight;
import dev.splice.weigh.campaign.Prediction;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Predicts the CPU time of a catalogued run (issue 12 point 7): every executed instruction is priced
 * by the contexts of its class, except jumps and branches, which always end a translation block
 * under QEMU and are priced by the kind of block they end (their contexts measure the instruction
 * together with TCG's way into the next block: chained, looked up, returned to); blocks cut without
 * a jump add the cost of a chained entry. A class or kind whose contexts have no published weight is
 * unpriced and reported with its count.
 *
 * <p>With the run's dynamics (the catalog's exits, branch directions, lookups and cache levels), exits
 * count as they were taken: chained branches by direction, exits of chained kinds to another page
 * priced by {@code jal.direct-jump.far} minus {@code jal.direct-jump}, and loads that the host's L2,
 * L3 or memory served and no stride predicts by the pointer-chase contexts ({@link MemoryPrices}); the
 * pages the run touched (each a host page fault the first time) by {@code sd.first-touch}; the
 * conditional branches a model of the host's branch predictor mispredicted by {@code beq.mispredicted}.
 *
 * <p>A compressed class is also priced by the contexts of the full instruction it expands to
 * ({@code c.add} by {@code add}'s, {@code c.ldsp} by {@code ld}'s): QEMU translates both through the
 * same function. Contexts that measure TCG's optimizer, dead-code elimination or constant folding
 * ({@link Context#measuresTcgOptimizer()}), price a class only when it has no other. The point price
 * of a class is the precision-weighted mean of its contexts' weights, its range the hull of their
 * simultaneous bands; the interval of the total sums the range ends. It holds whenever the band
 * covers every context (the band is simultaneous) and each class's true mean cost in the program
 * lies between its contexts: it does not cover what no context measures (how the host overlaps
 * independent work across classes, data-dependent cache misses, system calls).
 */
public final class Predictor {
    /** Classes whose every execution ends a translation block (riscv translate: DISAS_NORETURN). */
    static final Set<String> BLOCK_ENDING = Set.of("jal", "jalr", "beq", "bne", "blt", "bge", "bltu", "bgeu", "c.j",
            "c.jr", "c.jalr", "c.beqz", "c.bnez");
    private static final Set<String> BRANCHES = Set.of("beq", "bne", "blt", "bge", "bltu", "bgeu", "c.beqz", "c.bnez");
    private static final List<String> DIRECT = List.of("jal.direct-jump", "c.j.direct-jump");
    private static final List<String> INDIRECT = List.of("jalr.indirect-jump", "c.jr.indirect-jump");
    private static final List<String> INDIRECT_CALL = List.of("jalr.call", "c.jalr.call");
    /**
     * Compressed lookup contexts and their full forms. The compressed kernels' targets lie 10 bytes
     * apart, the full ones' 12: the catalog's model of QEMU 7.2's jump cache sees about a tenth of the
     * compressed kernel's lookups miss it (a probe of {@code c.jr.indirect-jump} alone: 6,559 misses of
     * 56,135 lookups, {@code jalr.indirect-jump}'s: 1,182 of 56,243; 5,377 more over 55,296 {@code c.jr}),
     * which at 20-30 ns a miss is the 2-3 ns they measure above the full forms. A program's lookups
     * miss far less often (at most 0.24% in the benchmark's five), and its misses are their own line.
     */
    static final Map<String, String> COLLIDING_LOOKUPS = Map.of("c.jr.indirect-jump", "jalr.indirect-jump",
            "c.jalr.call", "jalr.call", "c.jr.ret", "jalr.ret");
    private static final String BRANCH = "branch";
    /** Chained branch exits by direction (the catalog's dynamics), priced by the branch contexts of that direction. */
    private static final String BRANCH_TAKEN = "branch-taken";
    private static final String BRANCH_NOT_TAKEN = "branch-not-taken";
    /** The context of a direct jump to another page, measured against a chained one. */
    static final String FAR_JUMP = "jal.direct-jump.far";
    /** Exits of chained kinds that went to another page (the catalog's dynamics). */
    private static final Set<String> FAR_KINDS = Set.of("direct-far", "call-far", "branch-far", "fallthrough-far");
    /** The context of a store to a page the run has not touched, against one to a resident word. */
    static final String FIRST_TOUCH = "sd.first-touch";
    /**
     * The context of a conditional branch whose direction is a fair coin (mispredicted half the time by
     * any predictor), against the same branch in a direction the host predicts.
     */
    static final String MISPREDICTED = "beq.mispredicted";
    /** The baseline of {@link #MISPREDICTED}: the same setup, a branch whose direction the host predicts. */
    static final String PREDICTED = "bne.predicted";
    /** The block line of the conditional branches the model of the host's predictor mispredicted. */
    static final String BRANCH_MISPREDICTED = "branch-mispredicted";
    /** The memory line of the pages the run touched. */
    static final String PAGES_TOUCHED = "pages-touched";
    /** The block line of the lookups the jump cache model did not hold. */
    static final String LOOKUP_MISS = "lookup-miss";
    /** A floor on a band's half-width in the precision weights (a zero-width band would take all the weight). */
    private static final double MIN_HALF_WIDTH_NS = 1e-3;
    /** The block line of the chains' excess over throughput. */
    static final String CRITICAL_PATH = "critical-path-excess";

    /**
     * The contexts that price each block kind. Far kinds leave for another page, where QEMU 7.2 does
     * not chain: the next block is looked up as after an indirect jump. {@code branch} stands for
     * every context of a conditional branch class; {@code exit} (system calls, CSR accesses,
     * {@code fence.i}: back to the main loop) has no context.
     */
    static final Map<String, List<String>> BLOCK_CONTEXTS = blockContexts();

    private Predictor() {}

    private static Map<String, List<String>> blockContexts() {
        Map<String, List<String>> m = new LinkedHashMap<>();
        m.put("direct", DIRECT);
        m.put("direct-far", INDIRECT);
        m.put("call", List.of("jal.call"));
        m.put("call-far", INDIRECT_CALL);
        m.put("branch", List.of(BRANCH));
        m.put(BRANCH_TAKEN, List.of(BRANCH_TAKEN));
        m.put(BRANCH_NOT_TAKEN, List.of(BRANCH_NOT_TAKEN));
        m.put("branch-far", join(List.of(BRANCH), INDIRECT));
        m.put("indirect", INDIRECT);
        m.put("indirect-call", INDIRECT_CALL);
        m.put("return", List.of("jalr.ret", "c.jr.ret"));
        m.put("fallthrough", DIRECT);
        m.put("fallthrough-far", INDIRECT);
        m.put("exit", List.of());
        return m;
    }

    private static List<String> join(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    /**
     * Predicts the CPU time of {@code run}, or of the difference {@code run - minus} (two run lengths
     * of one program, so that start-up cancels).
     *
     * @param weights the contexts of a {@code weights.json}
     * @param run the catalog of the run, with block counts
     * @param minus the catalog of a shorter run of the same program, or null
     * @return the prediction
     * @throws BadInputException when a catalog has no block counts (catalogued by an older plugin)
     */
    public static Prediction predict(List<ContextWeight> weights, Catalog run, Catalog minus) {
        requireBlocks(run);
        if (minus != null) {
            requireBlocks(minus);
        }
        Map<String, Long> classes = difference(classCounts(run), minus == null ? Map.of() : classCounts(minus));
        // with the run's dynamics, exits count by how they were taken (chained or looked up), not by
        // where their static targets lie
        boolean dynamic = run.dynamics() != null && (minus == null || minus.dynamics() != null);
        Map<String, Long> blocks = dynamic
                ? difference(exitCounts(run), minus == null ? Map.of() : exitCounts(minus))
                : difference(blockCounts(run), minus == null ? Map.of() : blockCounts(minus));
        ContextTable table = ContextTable.load();
        // loads served beyond L1 are priced by the memory lines (MemoryPrices); a chase whose ring does
        // not fit L1 prices those, not every load of its class (its band would bound them all by memory's)
        List<ContextWeight> beyondFirstLevel = dynamic && !run.dynamics().caches().isEmpty()
                ? MemoryPrices.fitting(weights, table, run.dynamics().caches().get(0).sizeBytes(), Long.MAX_VALUE)
                : List.of();
        // the first-touch contexts price the pages the run touched, and the misprediction contexts the
        // branches the predictor model missed, not their classes
        List<ContextWeight> classWeights = weights.stream().filter(w -> !beyondFirstLevel.contains(w)
                && !table.context(w.context()).map(c -> c.pattern() == Context.Pattern.FIRST_TOUCH
                        || c.pattern() == Context.Pattern.MISPREDICTED).orElse(false))
                .toList();
        // with the blocks' dependence structure, classes are priced at throughput and the chains
        // longer than a block's throughput add their excess; without it, the mean of both (as before)
        boolean structured = !run.translatedBlocks().isEmpty() && (minus == null || !minus.translatedBlocks().isEmpty());
        Set<String> keys = new java.util.LinkedHashSet<>(classes.keySet());
        if (structured) {
            keys.addAll(blockKeys(run));
            if (minus != null) {
                keys.addAll(blockKeys(minus));
            }
        }
        Map<String, List<ContextWeight>> byClass = byClass(classWeights, keys, table);
        Map<String, Prediction.Price> throughput = new LinkedHashMap<>();
        Map<String, Prediction.Price> latency = new LinkedHashMap<>();
        for (String k : keys) {
            List<ContextWeight> live = live(byClass.get(k), table);
            Prediction.Price t = price(structured ? throughputContexts(live, table) : live);
            if (t != null) {
                throughput.put(k, t);
                Prediction.Price l = price(latencyContexts(live, table));
                latency.put(k, l != null ? l : t);
            }
        }
        Total total = new Total();
        List<Prediction.Line> classLines = new ArrayList<>();
        for (Map.Entry<String, Long> c : classes.entrySet()) {
            long n = c.getValue();
            total.instructions += Math.abs(n);
            if (BLOCK_ENDING.contains(c.getKey())) {
                classLines.add(new Prediction.Line(c.getKey(), n, null, "priced with the block it ends"));
                continue;
            }
            List<ContextWeight> live = live(byClass.get(c.getKey()), table);
            Prediction.Price p = throughput.get(c.getKey());
            if (p == null) {
                total.unpriced += Math.abs(n);
                classLines.add(new Prediction.Line(c.getKey(), n, null, byClass.get(c.getKey()).isEmpty()
                        ? "unpriced: no context measures it" : "unpriced: no published weight"));
            } else {
                total.add(n, p);
                boolean dead = live.stream().anyMatch(w -> table.context(w.context())
                        .map(Context::measuresTcgOptimizer).orElse(false));
                String what = structured ? "class contexts at throughput" : "class contexts";
                classLines.add(new Prediction.Line(c.getKey(), n, p, dead
                        ? what + " (measuring TCG's optimizer, dead code or folding: no other)" : what));
            }
        }
        List<Prediction.Line> blockLines = new ArrayList<>();
        Map<String, Prediction.Price> blockPrices = new LinkedHashMap<>();
        for (String kind : BLOCK_CONTEXTS.keySet()) {
            Prediction.Price p = price(blockWeights(kind, weights, dynamic));
            if (p != null) {
                blockPrices.put(kind, p);
            }
        }
        for (Map.Entry<String, Long> b : blocks.entrySet()) {
            long n = b.getValue();
            Prediction.Price far = dynamic && FAR_KINDS.contains(b.getKey()) ? farExit(weights) : null;
            if (far != null) {
                total.add(n, far);
                blockLines.add(new Prediction.Line(b.getKey(), n, far, "exits to another page: " + FAR_JUMP
                        + " minus jal.direct-jump (one lookup_and_goto_ptr exit)"));
                continue;
            }
            Prediction.Price p = price(blockWeights(b.getKey(), weights, dynamic));
            if (p == null) {
                blockLines.add(new Prediction.Line(b.getKey(), n, null, BLOCK_CONTEXTS.containsKey(b.getKey())
                        ? "unpriced: no context measures it" : "unpriced: unknown block kind"));
            } else {
                total.add(n, p);
                blockLines.add(new Prediction.Line(b.getKey(), n, p, dynamic ? "block contexts (exits as taken)"
                        : "block contexts"));
            }
        }
        List<Prediction.Line> memoryLines = new ArrayList<>();
        if (dynamic) {
            long misses = run.dynamics().lookupMisses() - (minus == null ? 0 : minus.dynamics().lookupMisses());
            blockLines.add(new Prediction.Line(LOOKUP_MISS, misses, null,
                    "unpriced: lookups QEMU's jump cache did not hold (no context measures a miss; each is priced as "
                            + "a hit in its block kind)"));
            if (run.dynamics().countsMispredictions() && (minus == null || minus.dynamics().countsMispredictions())) {
                Prediction.Line m = mispredictedBranches(run.dynamics().mispredictedBranches()
                        - (minus == null ? 0 : minus.dynamics().mispredictedBranches()), weights);
                blockLines.add(m);
                if (m.price() != null) {
                    total.add(m.count(), m.price());
                }
            }
            memoryLines.addAll(MemoryPrices.lines(run.dynamics(), minus == null ? null : minus.dynamics(), weights, table));
            if (run.dynamics().countsPages() && (minus == null || minus.dynamics().countsPages())) {
                memoryLines.add(touchedPages(run.dynamics().touchedPages()
                        - (minus == null ? 0 : minus.dynamics().touchedPages()), weights));
            }
            for (Prediction.Line m : memoryLines) {
                if (m.price() != null) {
                    total.add(m.count(), m.price());
                }
            }
        }
        if (structured) {
            CriticalPaths.Prices prices = new CriticalPaths.Prices(throughput, latency, blockPrices, BLOCK_ENDING);
            double[] excess = CriticalPaths.excess(run.translatedBlocks(), prices);
            long entered = run.translatedBlocks().stream().mapToLong(Catalog.TranslatedBlock::entered).sum();
            if (minus != null) {
                double[] less = CriticalPaths.excess(minus.translatedBlocks(), prices);
                for (int e = 0; e < 3; e++) {
                    excess[e] -= less[e];
                }
                entered -= minus.translatedBlocks().stream().mapToLong(Catalog.TranslatedBlock::entered).sum();
            }
            double per = entered == 0 ? 0 : 1.0 / entered;
            Prediction.Price p = new Prediction.Price(excess[0] * per, Math.min(excess[1], excess[2]) * per,
                    Math.max(excess[1], excess[2]) * per, List.of());
            total.ns += excess[0];
            total.lowNs += Math.min(excess[1], excess[2]);
            total.highNs += Math.max(excess[1], excess[2]);
            blockLines.add(new Prediction.Line(CRITICAL_PATH, entered, p,
                    "blocks entered; ns: the mean excess of a block's longest dependence chain (latency prices) "
                            + "over its throughput prices and exit"));
        }
        return new Prediction(total.ns / 1e9, total.lowNs / 1e9, total.highNs / 1e9, total.instructions,
                total.unpriced, classLines, blockLines, memoryLines);
    }

    private static final class Total {
        double ns;
        double lowNs;
        double highNs;
        long instructions;
        long unpriced;

        void add(long n, Prediction.Price p) {
            ns += n * p.ns();
            lowNs += Math.min(n * p.lowNs(), n * p.highNs());
            highNs += Math.max(n * p.lowNs(), n * p.highNs());
        }
    }

    private static void requireBlocks(Catalog c) {
        if (c.blocks().isEmpty()) {
            throw new BadInputException((c.origin() == null ? "the catalog" : c.origin().program() + "'s catalog")
                    + " has no block counts (written by an older plugin or by hand): catalog the program again with "
                    + "'splice weigh catalog'");
        }
    }

    private static Map<String, Long> classCounts(Catalog c) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Catalog.Entry e : c.entries()) {
            out.put(e.key(), Math.max(0, e.executed()));
        }
        return out;
    }

    private static Map<String, Long> blockCounts(Catalog c) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Catalog.Block b : c.blocks()) {
            out.put(b.kind(), b.executed());
        }
        return out;
    }

    /**
     * The price of one exit to another page: {@link #FAR_JUMP} minus its baseline {@code jal.direct-jump}
     * (each of its slots is a jump to the next page and a chained jump); null when either is unpublished.
     * Every far kind leaves through the same {@code lookup_and_goto_ptr}, so it prices them all.
     */
    private static Prediction.Price farExit(List<ContextWeight> weights) {
        return contrast(weights, FAR_JUMP, "jal.direct-jump", 1);
    }

    /** The price of one context; null when it is unpublished. */
    private static Prediction.Price priceOf(List<ContextWeight> weights, String context) {
        return price(weights.stream().filter(w -> w.context().equals(context)).toList());
    }

    /**
     * {@code factor} times a context's weight minus another's (weights are against the root baseline),
     * its range from opposite ends of the two bands; null when either is unpublished.
     */
    private static Prediction.Price contrast(List<ContextWeight> weights, String context, String baseline, double factor) {
        Prediction.Price c = priceOf(weights, context);
        Prediction.Price b = priceOf(weights, baseline);
        if (c == null || b == null) {
            return null;
        }
        return new Prediction.Price(factor * (c.ns() - b.ns()), factor * (c.lowNs() - b.highNs()),
                factor * (c.highNs() - b.lowNs()), List.of(context, baseline));
    }

    /**
     * The pages the run touched: each is a host page fault on its first touch (the kernel zeroes a
     * page, and frees it at exit), system time that no instruction context measures, priced by
     * {@link #FIRST_TOUCH} (a store to an untouched page against one to a resident word after the same
     * setup). By hand (docs/weigh-model.md): {@code loops}' difference of run lengths touches 1,758
     * more pages, its {@code qemu-riscv64} takes 1,764 more minor faults, and a page first touched
     * cost 10-13 us of CPU (user and system) on session 15's host, 1.9-2.9 us on session 17's (whose
     * campaign measured 1.5-2.1 us in some runs and 10.3-11.0 in others).
     */
    private static Prediction.Line touchedPages(long pages, List<ContextWeight> weights) {
        Prediction.Price p = priceOf(weights, FIRST_TOUCH);
        return p == null
                ? new Prediction.Line(PAGES_TOUCHED, pages, null, "unpriced: pages first touched (a host page fault "
                        + "each; no published " + FIRST_TOUCH + ")")
                : new Prediction.Line(PAGES_TOUCHED, pages, p, "pages first touched: a host page fault each, "
                        + FIRST_TOUCH + " against a store to a resident word");
    }

    /**
     * The conditional branches the catalog's model of the host's predictor mispredicted: each flushes
     * the host's pipeline, which the branch contexts (a fixed direction per branch) do not measure.
     * {@link #MISPREDICTED}'s slot branches on a fair coin and {@link #PREDICTED}'s, after the same
     * setup, in a direction the host predicts; weights are against the root baseline, so their
     * difference is half a misprediction per slot, and a misprediction costs twice it. By hand
     * (docs/weigh-model.md, session 17) a mispredicted guest branch costs about 7 ns on this project's
     * host. Unpriced when either context is unpublished.
     */
    private static Prediction.Line mispredictedBranches(long count, List<ContextWeight> weights) {
        Prediction.Price p = contrast(weights, MISPREDICTED, PREDICTED, 2);
        if (p == null) {
            return new Prediction.Line(BRANCH_MISPREDICTED, count, null, "unpriced: conditional branches the "
                    + "predictor model mispredicted (needs published " + MISPREDICTED + " and " + PREDICTED + ")");
        }
        return new Prediction.Line(BRANCH_MISPREDICTED, count, p, "conditional branches the predictor model "
                + "mispredicted: twice " + MISPREDICTED + " minus " + PREDICTED + " (a fair coin's direction, "
                + "mispredicted half the time, against a predicted one)");
    }

    /** Exits as taken; chained branch exits split into taken and not taken. */
    private static Map<String, Long> exitCounts(Catalog c) {
        Map<String, Long> out = new LinkedHashMap<>();
        for (Catalog.Exit e : c.dynamics().exits()) {
            if (e.kind().equals(BRANCH)) {
                out.put(BRANCH_TAKEN, c.dynamics().branchesTaken());
                out.put(BRANCH_NOT_TAKEN, c.dynamics().branchesNotTaken());
            } else {
                out.put(e.kind(), e.count());
            }
        }
        return out;
    }

    /** a - b by key, in a's order then b's. */
    private static Map<String, Long> difference(Map<String, Long> a, Map<String, Long> b) {
        Map<String, Long> out = new LinkedHashMap<>(a);
        b.forEach((k, v) -> out.merge(k, -v, Long::sum));
        return out;
    }

    /**
     * The contexts of each class: {@link CatalogMapper#classOf}, but a context of the context table
     * only when its mnemonic is the class's ({@code slli.uw.dependency} prices {@code slli.uw}, not
     * {@code slli} when the run has no {@code slli.uw}).
     */
    private static Map<String, List<ContextWeight>> byClass(List<ContextWeight> weights, Set<String> keys,
            ContextTable table) {
        Map<String, List<ContextWeight>> out = new LinkedHashMap<>();
        keys.forEach(k -> out.put(k, new ArrayList<>()));
        for (ContextWeight w : weights) {
            String cls = CatalogMapper.classOf(w, keys);
            Optional<String> mnemonic = table.context(w.context()).map(Context::mnemonic);
            if (cls != null && mnemonic.map(m -> cls.equals(m) || cls.startsWith(m + ".")).orElse(true)) {
                out.get(cls).add(w);
            }
        }
        for (String cls : keys) {
            String full = fullForm(cls);
            if (full == null || BLOCK_ENDING.contains(cls)) {
                continue;
            }
            for (ContextWeight w : weights) {
                Optional<String> mnemonic = table.context(w.context()).map(Context::mnemonic);
                if (mnemonic.map(full::equals).orElse(w.context().startsWith(full + "."))) {
                    out.get(cls).add(w);
                }
            }
        }
        return out;
    }

    /** Compressed forms whose full form is not the name without {@code c.}. */
    private static final Map<String, String> EXPANSIONS = Map.of("c.li", "addi", "c.mv", "add", "c.addi16sp", "addi",
            "c.addi4spn", "addi", "c.lwsp", "lw", "c.ldsp", "ld", "c.swsp", "sw", "c.sdsp", "sd", "c.fldsp", "fld",
            "c.fsdsp", "fsd");

    /**
     * The full instruction a compressed class expands to: QEMU decodes a compressed instruction into
     * the same translation function as its full form, so the full form's contexts price it too.
     */
    static String fullForm(String cls) {
        if (!cls.startsWith("c.")) {
            return null;
        }
        return EXPANSIONS.getOrDefault(cls, cls.substring(2));
    }

    /** The class keys the translated blocks run. */
    private static Set<String> blockKeys(Catalog c) {
        Set<String> out = new java.util.LinkedHashSet<>();
        c.translatedBlocks().forEach(t -> out.addAll(t.keys()));
        return out;
    }

    /** A class's throughput contexts: all but its dependency chains, or all when it has only those. */
    private static List<ContextWeight> throughputContexts(List<ContextWeight> ws, ContextTable table) {
        List<ContextWeight> other = ws.stream().filter(w -> !dependency(w, table)).toList();
        return price(other) != null ? other : ws;
    }

    /** A class's latency contexts: its dependency chains (none: it is priced at throughput). */
    private static List<ContextWeight> latencyContexts(List<ContextWeight> ws, ContextTable table) {
        return ws.stream().filter(w -> dependency(w, table)).toList();
    }

    private static boolean dependency(ContextWeight w, ContextTable table) {
        return table.context(w.context()).map(c -> c.pattern() == Context.Pattern.DEPENDENCY).orElse(false);
    }

    /** Contexts that measure TCG's optimizer price a class only when it has no other. */
    private static List<ContextWeight> live(List<ContextWeight> ws, ContextTable table) {
        List<ContextWeight> live = ws.stream()
                .filter(w -> !table.context(w.context()).map(Context::measuresTcgOptimizer).orElse(false))
                .toList();
        return live.isEmpty() ? ws : live;
    }

    /**
     * The contexts of a block kind. With exits counted as taken, {@code branch-far} counts branch exits
     * whose next block QEMU looked up, priced by the lookup contexts as the other far kinds; without,
     * it counts branches one of whose targets is on another page, priced by branch and lookup contexts.
     */
    private static List<ContextWeight> blockWeights(String kind, List<ContextWeight> weights, boolean dynamic) {
        Set<String> names = new LinkedHashSet<>(dynamic && kind.equals("branch-far") ? INDIRECT
                : BLOCK_CONTEXTS.getOrDefault(kind, List.of()));
        List<ContextWeight> out = new ArrayList<>();
        for (ContextWeight w : weights) {
            boolean ofBranch = BRANCHES.stream().anyMatch(b -> w.context().startsWith(b + "."));
            boolean branch = ofBranch && (names.contains(BRANCH)
                    || names.contains(BRANCH_TAKEN) && w.context().endsWith(".taken")
                    || names.contains(BRANCH_NOT_TAKEN) && w.context().endsWith(".not-taken"));
            if (names.contains(w.context()) || branch) {
                out.add(w);
            }
        }
        return withoutCollidingLookups(out);
    }

    /** The contexts but the compressed lookup ones whose full form is among them with a weight. */
    static List<ContextWeight> withoutCollidingLookups(List<ContextWeight> ws) {
        Set<String> priced = new LinkedHashSet<>();
        ws.stream().filter(w -> price(List.of(w)) != null).forEach(w -> priced.add(w.context()));
        return ws.stream().filter(w -> !priced.contains(COLLIDING_LOOKUPS.getOrDefault(w.context(), ""))).toList();
    }

    /**
     * The precision-weighted mean of the published weights (each weighted by the inverse square of its
     * band's half-width: contexts that measure one thing, {@code jalr.indirect-jump} and
     * {@code c.jr.indirect-jump}, agree up to their noise, and the better measured one counts more),
     * and the hull of their bands; null when none is published.
     */
    static Prediction.Price price(List<ContextWeight> ws) {
        List<ContextWeight> usable = ws.stream()
                .filter(w -> w.weightNs() != null && Double.isFinite(w.ciLowNs()) && Double.isFinite(w.ciHighNs()))
                .toList();
        if (usable.isEmpty()) {
            return null;
        }
        double sum = 0;
        double precision = 0;
        double low = Double.POSITIVE_INFINITY;
        double high = Double.NEGATIVE_INFINITY;
        for (ContextWeight w : usable) {
            double half = Math.max(MIN_HALF_WIDTH_NS, (w.ciHighNs() - w.ciLowNs()) / 2);
            sum += w.weightNs() / (half * half);
            precision += 1 / (half * half);
            low = Math.min(low, w.ciLowNs());
            high = Math.max(high, w.ciHighNs());
        }
        double mean = usable.size() == 1 ? usable.get(0).weightNs() : sum / precision; // one context: its weight, exactly
        return new Prediction.Price(mean, low, high, usable.stream().map(ContextWeight::context).toList());
    }
}
