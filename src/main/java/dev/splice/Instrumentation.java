package dev.splice;

import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import dev.splice.cfg.EdgeProfileException;
import dev.splice.cfg.FunctionEdges;
import dev.splice.cfg.FunctionEdges.FlowEdge;
import dev.splice.cfg.Liveness;
import dev.splice.cfg.riscv.RiscVCfg;
import dev.splice.cfg.riscv.RiscVEdges;
import dev.splice.cfg.riscv.RiscVLiveness;
import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.elf.reloc.RiscVAttributes;
import dev.splice.patch.BranchTarget;
import dev.splice.patch.Insertion;
import dev.splice.patch.PatchException;
import dev.splice.profile.EdgeMap;
import dev.splice.profile.EdgeProfile;
import dev.splice.profile.Fdata;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code splice instrument} and {@code splice profile convert}: edge profiles by instrumentation
 * (docs/instrument.md). Each selected function's flow network gets counters on the complement of
 * a spanning tree ({@code cfg.EdgeCounters}); the counters are fragments inserted by the
 * write-back, written at exit by the runtime as raw 8-byte words; the output carries the counter
 * map ({@link EdgeMap}, section {@value EdgeMap#SECTION}), from which {@link #convert} recovers
 * every edge count and writes fdata in the input's coordinates.
 */
public final class Instrumentation {
    /** The counter file's default name, as BOLT's instrumentation writes /tmp/prof.fdata. */
    public static final String DEFAULT_COUNTER_FILE = "/tmp/prof.counters";
    /** Functions never instrumented: the exit hook's (its counters would be written before they count). */
    private static final Set<String> EXCLUDED = Set.of("_exit");
    /** Symbols of thread creation in a static binary. */
    private static final Set<String> THREAD_CREATION = Set.of("pthread_create", "thrd_create", "__pthread_create_2_1");

    private Instrumentation() {}

    /**
     * What {@link #instrument} did.
     *
     * @param functions the functions instrumented
     * @param counters the counters placed
     * @param edges the edges of their networks (counted or not)
     * @param atomic whether the counters are incremented with amoadd.d
     * @param skipped the functions selected but left alone, with why, in address order
     */
    public record Summary(int functions, int counters, int edges, boolean atomic, List<Skipped> skipped) {}

    /**
     * A function left alone.
     *
     * @param function its name
     * @param address its address
     * @param reason why
     */
    public record Skipped(String function, long address, String reason) {}

    /**
     * Writes an instrumented copy of a static RISC-V executable linked with --emit-relocs.
     *
     * @param input the input binary (never modified)
     * @param output the instrumented binary (written atomically)
     * @param globs shell globs over function names ({@code *}, {@code ?}); empty: every function
     * @param counterFile the counter file's name at run time ({@code %p}: the pid; the environment
     *     variable SPLICE_COUNTER_FILE overrides it); null: {@value #DEFAULT_COUNTER_FILE}
     * @return what was done
     * @throws BadInputException when the binary cannot be instrumented at all
     */
    public static Summary instrument(Path input, Path output, List<String> globs, String counterFile) {
        return instrument(input, output, globs, counterFile, null);
    }

    /**
     * Writes an instrumented copy of a static RISC-V executable linked with --emit-relocs, with a
     * user's runtime object linked in ({@code Rewrite.runtime}): its {@code __splice_user_exit}, if
     * it defines one, runs at exit before the counters are written (docs/instrument.md).
     *
     * @param input the input binary (never modified)
     * @param output the instrumented binary (written atomically)
     * @param globs shell globs over function names ({@code *}, {@code ?}); empty: every function
     * @param counterFile the counter file's name at run time; null: {@value #DEFAULT_COUNTER_FILE}
     * @param runtime a RISC-V relocatable object to link into the runtime; null: none
     * @return what was done
     * @throws BadInputException when the binary cannot be instrumented at all
     * @throws PatchException when the object holds what Splice cannot link exactly
     */
    public static Summary instrument(Path input, Path output, List<String> globs, String counterFile, Path runtime) {
        ElfFile elf = ElfFile.read(input);
        boolean atomic = hasAtomics(elf);
        if (!atomic && mayCreateThreads(elf)) {
            throw new BadInputException(input + ": the binary may create threads but its Tag_RISCV_arch has no A "
                    + "extension: plain counter increments would lose counts, amoadd.d is not available");
        }
        Pattern selected = globs(globs);
        RiscVEdges.Binary binary = RiscVEdges.Binary.of(elf);
        dev.splice.patch.Rewrite probe = dev.splice.patch.Rewrite.of(elf);
        Map<Function, FunctionEdges> networks = new LinkedHashMap<>();
        Map<Long, Set<Long>> insertable = new java.util.HashMap<>();
        List<Skipped> skipped = new ArrayList<>();
        Set<Long> seen = new HashSet<>();
        List<Function> functions = new ArrayList<>(elf.functions());
        functions.sort(Comparator.comparingLong(Function::address));
        for (Function f : functions) {
            if (f.size() <= 0 || f.section() == null || !f.section().isExecutable() || !selected.matcher(f.name()).matches()
                    || EXCLUDED.contains(f.name()) || !seen.add(f.address())) {
                continue;
            }
            try {
                Set<Long> points = new HashSet<>(probe.insertionPoints(f));
                insertable.put(f.address(), points);
                networks.put(f, RiscVEdges.of(binary, f, at -> points.contains(f.address() + at)));
            } catch (PatchException | EdgeProfileException e) {
                skipped.add(new Skipped(f.name(), f.address(), e.getMessage()));
            }
        }
        Map<Long, String> names = new java.util.HashMap<>();
        for (Function f : functions) {
            names.putIfAbsent(f.address(), f.name());
        }
        CounterFragments fragments = new CounterFragments(atomic);
        Set<Long> abiEntries = new HashSet<>();
        functions.stream().filter(f -> !f.name().contains(".cold")).forEach(f -> abiEntries.add(f.address()));
        functions.stream().filter(f -> f.name().contains(".cold")).forEach(f -> abiEntries.remove(f.address()));
        Map<Function, FunctionEdges> chosen = networks;
        while (true) {
            Map<Function, FunctionEdges> base = chosen;
            Map<Long, Integer> leafCache = new java.util.HashMap<>();
            functions.forEach(f -> leafCache.putIfAbsent(f.address(), -1));
            networks = CallerCountedEntries.apply(elf, chosen, functions, target -> base.entrySet().stream()
                    .filter(n -> n.getKey().address() == target).findFirst()
                    .map(n -> leafRegisters(binary, n.getKey(), n.getValue()))
                    .orElseGet(() -> leafCache.containsKey(target) ? uninstrumentedLeaf(binary, functions, target, leafCache) : -1)
                    >= 0);
            List<Insertion> insertions = new ArrayList<>();
            List<EdgeMap.FunctionMap> maps = new ArrayList<>();
            Map<FlowEdge, Integer> order = new java.util.IdentityHashMap<>();
            List<Flush> flushes = new ArrayList<>();
            Plans plans = plans(binary, abiEntries, networks, functions, atomic, insertable);
            for (Map.Entry<Function, FunctionEdges> n : networks.entrySet()) {
                Function f = n.getKey();
                Liveness live = plans.live().get(f);
                LoopPromotion.Plan plan = plans.plan().get(f);
                int preserved = plans.preserved().getOrDefault(f.address(), 0);
                for (int c : n.getValue().counters().counted()) {
                    FlowEdge e = n.getValue().edges().get(c);
                    if (e.probe() == FunctionEdges.Probe.CALLERS) {
                        continue; // no fragment: the callers' counters give it
                    }
                    order.put(e, insertions.size());
                    Integer register = plan.register().get(e);
                    insertions.add(register != null ? promoted(elf, f, e, fragments, register)
                            : insertion(elf, f, e, fragments,
                                    live.liveBefore(e.probeOffset()) | plan.reservedAt(e.probeOffset()) | preserved));
                }
                String name = "promoted loop counters in " + f.name();
                plan.zeroing().forEach((at, registers) -> insertions.add(
                        new Insertion(f.address() + at, fragments.zero(registers), name + " (zeroing)", BranchTarget.INSERTED)));
                for (Map.Entry<Integer, List<FlowEdge>> x : new java.util.TreeMap<>(plan.flushes()).entrySet()) {
                    int scratch = CounterFragments.firstDead(live.liveBefore(x.getKey()) | plan.reservedAt(x.getKey()) | preserved);
                    BranchTarget policy = plan.fallThroughFlushes().contains(x.getKey()) ? BranchTarget.ORIGINAL : BranchTarget.INSERTED;
                    if (scratch < 0) {
                        throw new IllegalStateException("no register for a flush at " + f.name() + "+0x" + Integer.toHexString(x.getKey()));
                    }
                    flushes.add(new Flush(insertions.size(), x.getValue(), plan, scratch, plan.takenFlushes().contains(x.getKey())));
                    insertions.add(new Insertion(f.address() + x.getKey(), "", name + " (flush)", policy));
                }
            }
            int[] slotOf = slots(insertions);
            for (Flush x : flushes) {
                Insertion placeholder = insertions.get(x.index());
                int[] slots = x.edges().stream().mapToInt(e -> slotOf[order.get(e)]).toArray();
                List<Integer> registers = x.edges().stream().map(e -> x.plan().register().get(e)).toList();
                String flush = fragments.flush(registers, slots, x.scratch());
                if (x.ifTaken()) {
                    flush = fragments.ifTakenOnly(elf, placeholder.address(), flush);
                }
                insertions.set(x.index(), new Insertion(placeholder.address(), flush,
                        placeholder.fragmentName(), placeholder.branchTarget()));
            }
            for (Map.Entry<Function, FunctionEdges> n : networks.entrySet()) {
                maps.add(map(names, n.getKey(), n.getValue(), e -> order.containsKey(e) ? slotOf[order.get(e)]
                        : e.probe() == FunctionEdges.Probe.CALLERS ? EdgeMap.FROM_CALLS : -1));
            }
            if (insertions.isEmpty()) {
                throw new BadInputException(input + ": no function to instrument" + (skipped.isEmpty() ? ""
                        : " (" + skipped.size() + " left alone; first: " + skipped.get(0).reason() + ")"));
            }
            dev.splice.patch.Rewrite rewrite = dev.splice.patch.Rewrite.of(elf)
                    .counterFile(counterFile == null ? DEFAULT_COUNTER_FILE : counterFile);
            if (runtime != null) {
                rewrite.runtime(runtime);
            }
            insertions.forEach(rewrite::insert);
            byte[] bytes;
            try {
                bytes = rewrite.run().bytes();
            } catch (PatchException e) {
                Function culprit = chosen.keySet().stream().filter(f -> f.address() == e.functionAddress()).findFirst()
                        .orElseThrow(() -> e);
                chosen.remove(culprit);
                skipped.add(new Skipped(culprit.name(), culprit.address(), e.getMessage()));
                continue;
            }
            EdgeMap map = new EdgeMap(insertions.size(), maps);
            writeWithMap(bytes, map, output);
            skipped.sort(Comparator.comparingLong(Skipped::address));
            int edges = networks.values().stream().mapToInt(n -> n.edges().size()).sum();
            return new Summary(networks.size(), insertions.size(), edges, atomic, List.copyOf(skipped));
        }
    }

    /**
     * What {@link #convert} wrote.
     *
     * @param functions the functions in the map
     * @param branchLines the fdata lines written
     */
    public record Converted(int functions, int branchLines) {}

    /**
     * Converts the raw counters of a run of an instrumented binary into fdata in the input's coordinates.
     *
     * @param instrumented the binary {@link #instrument} wrote (it holds the counter map)
     * @param counters the counter file the run wrote
     * @param fdata the profile to write (atomically)
     * @return what was written
     * @throws BadInputException when the binary has no map, or the counters do not fit it
     */
    public static Converted convert(Path instrumented, Path counters, Path fdata) {
        ElfFile elf = ElfFile.read(instrumented);
        Section s = elf.section(EdgeMap.SECTION).orElseThrow(() -> new BadInputException(instrumented
                + ": no " + EdgeMap.SECTION + " section: not a binary 'splice instrument' wrote"));
        EdgeMap map = EdgeMap.parse(new String(elf.contents(s), StandardCharsets.UTF_8), instrumented + " " + EdgeMap.SECTION);
        byte[] raw = dev.splice.base.InputFiles.readBytes(counters);
        Fdata profile = EdgeProfile.fdata(map, EdgeProfile.counters(raw, map, counters.toString()));
        StringWriter text = new StringWriter();
        try {
            profile.write(text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        AtomicFiles.write(fdata, text.toString().getBytes(StandardCharsets.UTF_8));
        return new Converted(map.functions().size(), profile.branches().size());
    }

    /**
     * The registers live in a function (its write-back graph, the landing pads it may throw to);
     * a jump out of it to a function's start is a tail call, except into a {@code .cold} part.
     */
    private static Liveness liveness(RiscVEdges.Binary binary, Set<Long> abiEntries, Function f) {
        byte[] code = binary.elf().contents(f.section());
        int base = (int) (f.address() - f.section().address());
        int size = (int) f.size();
        int[] pads = java.util.Arrays.stream(binary.landingPads().getOrDefault(f.address(), new long[0]))
                .filter(f::contains).mapToInt(a -> (int) (a - f.address())).toArray();
        return RiscVLiveness.of(code, base, size, RiscVCfg.of(code, base, size, pads), f.address(), abiEntries::contains);
    }

    /** A flush of promoted counters, its fragment written once the slots are numbered. */
    private record Flush(int index, List<FlowEdge> edges, LoopPromotion.Plan plan, int scratch, boolean ifTaken) {}

    /**
     * Every instrumented function's liveness and promotions, and per leaf function the registers
     * its fragments must keep (the promoted counters of loops that call it).
     */
    private record Plans(Map<Function, Liveness> live, Map<Function, LoopPromotion.Plan> plan, Map<Long, Integer> preserved) {}

    /**
     * Plans the promotions of leaf functions first (they call nothing), then of the others, which
     * may keep a loop's counter across a call of a leaf that neither reads nor writes its register,
     * its own counters and promotions included.
     */
    private static Plans plans(RiscVEdges.Binary binary, Set<Long> abiEntries, Map<Function, FunctionEdges> networks,
                               List<Function> functions, boolean atomic, Map<Long, Set<Long>> insertable) {
        Map<Function, Liveness> lives = new java.util.HashMap<>();
        Map<Function, LoopPromotion.Plan> plans = new java.util.HashMap<>();
        Map<Long, Integer> leaves = new java.util.HashMap<>();
        for (Map.Entry<Function, FunctionEdges> n : networks.entrySet()) {
            Function f = n.getKey();
            lives.put(f, liveness(binary, abiEntries, f));
            int touched = leafRegisters(binary, f, n.getValue());
            if (touched >= 0) {
                LoopPromotion.Plan plan = promotions(binary, f, n.getValue(), lives.get(f), atomic, target -> -1, insertable);
                plans.put(f, plan);
                for (int r : plan.register().values()) {
                    touched |= 1 << r;
                }
                leaves.put(f.address(), touched);
            }
        }
        Map<Long, Integer> uninstrumented = new java.util.HashMap<>();
        for (Function f : functions) {
            if (!networks.containsKey(f) && f.size() > 0 && f.section() != null && f.section().isExecutable()) {
                uninstrumented.putIfAbsent(f.address(), -1);
            }
        }
        java.util.function.LongToIntFunction leaf = target -> leaves.getOrDefault(target,
                uninstrumented.containsKey(target) ? uninstrumentedLeaf(binary, functions, target, uninstrumented) : -1);
        Map<Long, Integer> preserved = new java.util.HashMap<>();
        for (Map.Entry<Function, FunctionEdges> n : networks.entrySet()) {
            Function f = n.getKey();
            LoopPromotion.Plan plan = plans.get(f);
            if (plan == null) {
                plan = promotions(binary, f, n.getValue(), lives.get(f), atomic, leaf, insertable);
                plans.put(f, plan);
            }
            plan.preserved().forEach((callee, registers) -> preserved.merge(callee, registers, (x, y) -> x | y));
        }
        return new Plans(lives, plans, preserved);
    }

    /** The registers a function of the binary touches if it is a leaf (no jump tables known: none may be in it), else -1. */
    private static int uninstrumentedLeaf(RiscVEdges.Binary binary, List<Function> functions, long address,
                                          Map<Long, Integer> cache) {
        return cache.computeIfPresent(address, (a, known) -> known >= 0 ? known : functions.stream()
                .filter(f -> f.address() == a && f.size() > 0).findFirst()
                .map(f -> LoopPromotion.leafRegisters(binary.elf().contents(f.section()), (int) (f.address() - f.section().address()),
                        (int) f.size(), Set.of()))
                .orElse(-1));
    }

    /** The registers an instrumented function touches if it is a leaf (its jump tables' jumps from its network), else -1. */
    private static int leafRegisters(RiscVEdges.Binary binary, Function f, FunctionEdges net) {
        Set<Integer> tableJumps = new HashSet<>();
        for (FlowEdge e : net.edges()) {
            if (e.kind() == FunctionEdges.EdgeKind.TABLE) {
                tableJumps.add(e.fromOffset());
            }
        }
        return LoopPromotion.leafRegisters(binary.elf().contents(f.section()), (int) (f.address() - f.section().address()),
                (int) f.size(), tableJumps);
    }

    /** The loops of a function whose counters are kept in registers (atomic binaries only: the flush is an amoadd.d). */
    private static LoopPromotion.Plan promotions(RiscVEdges.Binary binary, Function f, FunctionEdges net, Liveness live,
                                                 boolean atomic, java.util.function.LongToIntFunction leaves,
                                                 Map<Long, Set<Long>> insertable) {
        dev.splice.cfg.ControlFlowGraph cfg = atomic ? RiscVEdges.cfg(binary, f) : null;
        if (cfg == null) {
            return LoopPromotion.Plan.NONE;
        }
        byte[] code = binary.elf().contents(f.section());
        int base = (int) (f.address() - f.section().address());
        return LoopPromotion.plan(cfg, net, code, base, (int) f.size(), live, RiscVEdges.labels(binary, f),
                CounterFragments.CANDIDATES, f.address(), leaves,
                at -> insertable.getOrDefault(f.address(), Set.of()).contains(f.address() + at));
    }

    private static Insertion promoted(ElfFile elf, Function f, FlowEdge e, CounterFragments fragments, int register) {
        long at = f.address() + e.probeOffset();
        String name = "promoted edge counter (" + e.kind().name().toLowerCase(Locale.ROOT) + ") in " + f.name();
        return switch (e.probe()) {
            case BEFORE -> new Insertion(at, fragments.promoted(register), name, BranchTarget.INSERTED);
            case BEFORE_IF_TAKEN -> new Insertion(at, fragments.promotedIfTaken(elf, at, register), name, BranchTarget.INSERTED);
            case AT_FALL_THROUGH -> new Insertion(at, fragments.promoted(register), name, BranchTarget.ORIGINAL);
            case NONE, CALLERS -> throw new IllegalStateException("a counter on an edge without a probe: " + e);
        };
    }

    private static Insertion insertion(ElfFile elf, Function f, FlowEdge e, CounterFragments fragments, int live) {
        long at = f.address() + e.probeOffset();
        String name = "edge counter (" + e.kind().name().toLowerCase(Locale.ROOT) + ") in " + f.name();
        return switch (e.probe()) {
            case BEFORE -> new Insertion(at, fragments.always(live), name, BranchTarget.INSERTED);
            case BEFORE_IF_TAKEN -> new Insertion(at, fragments.ifTaken(elf, at, live), name, BranchTarget.INSERTED);
            case AT_FALL_THROUGH -> new Insertion(at, fragments.always(live), name, BranchTarget.ORIGINAL);
            case NONE, CALLERS -> throw new IllegalStateException("a counter on an edge without a probe: " + e);
        };
    }

    /** Each insertion's counter slot: its number as the write-back gives it (by address, stable). */
    private static int[] slots(List<Insertion> insertions) {
        Integer[] idx = new Integer[insertions.size()];
        for (int i = 0; i < idx.length; i++) {
            idx[i] = i;
        }
        java.util.Arrays.sort(idx, Comparator.comparingLong(i -> insertions.get(i).address()));
        int[] slot = new int[idx.length];
        for (int k = 0; k < idx.length; k++) {
            slot[idx[k]] = k;
        }
        return slot;
    }

    private static EdgeMap.FunctionMap map(Map<Long, String> names, Function f, FunctionEdges net,
                                           java.util.function.ToIntFunction<FlowEdge> slot) {
        List<EdgeMap.Edge> edges = new ArrayList<>();
        for (FlowEdge e : net.edges()) {
            edges.add(new EdgeMap.Edge(e.from(), e.to(), e.kind(), e.fromOffset(), e.toOffset(), slot.applyAsInt(e)));
        }
        List<EdgeMap.Call> calls = new ArrayList<>();
        for (FunctionEdges.CallSite c : net.calls()) {
            String callee = c.target() < 0 ? null : names.get(c.target());
            calls.add(new EdgeMap.Call(c.block(), c.offset(), callee));
        }
        return new EdgeMap.FunctionMap(f.name(), f.address(), net.nodes(), edges, calls);
    }

    private static void writeWithMap(byte[] bytes, EdgeMap map, Path output) {
        ElfEditor editor = ElfFile.parse(bytes, output.toString()).edit();
        editor.addSection(EdgeMap.SECTION, Section.SHT_PROGBITS, 0, 0, 1, 0, 0, 0,
                map.toText().getBytes(StandardCharsets.UTF_8));
        new dev.splice.patch.Rewrite.Result(editor.toBytes(), List.of(), List.of()).writeTo(output);
    }

    private static boolean hasAtomics(ElfFile elf) {
        String[] parts = RiscVAttributes.arch(elf).orElse("rv64gc").toLowerCase(Locale.ROOT).replaceAll("\\d+p\\d+", "")
                .split("_");
        if (!parts[0].startsWith("rv64")) {
            return false;
        }
        String letters = parts[0].substring(4);
        return letters.indexOf('a') >= 0 || letters.indexOf('g') >= 0 || java.util.Arrays.asList(parts).contains("a");
    }

    private static boolean mayCreateThreads(ElfFile elf) {
        return elf.functions().stream().anyMatch(f -> THREAD_CREATION.contains(f.name()));
    }

    private static Pattern globs(List<String> globs) {
        if (globs.isEmpty()) {
            return Pattern.compile(".*", Pattern.DOTALL);
        }
        List<String> parts = new ArrayList<>();
        for (String g : globs) {
            StringBuilder re = new StringBuilder();
            for (char c : g.toCharArray()) {
                re.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
            }
            parts.add(re.toString());
        }
        return Pattern.compile(String.join("|", parts), Pattern.DOTALL);
    }
}
