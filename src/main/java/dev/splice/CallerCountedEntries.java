package dev.splice;

import dev.splice.cfg.FunctionEdges;
import dev.splice.cfg.FunctionEdges.CallSite;
import dev.splice.elf.ElfFile;
import dev.splice.elf.ElfHeader;
import dev.splice.elf.Function;
import dev.splice.elf.Relocation;
import dev.splice.elf.RelocationSection;
import dev.splice.elf.Section;
import dev.splice.elf.Segment;
import dev.splice.elf.Symbol;
import dev.splice.isa.ControlFlow;
import dev.splice.isa.Decoder;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Functions whose entries their callers count (docs/instrument.md, "Entries counted by the
 * callers"): where every way into a function's start is a direct call from an instrumented
 * function, and each such call is the first call of its block or follows only calls of leaves
 * (which come back), the function is entered exactly as often as those blocks are (a block runs
 * to such a call unless the program dies first, which loses the counters anyway), so its entry edge needs no counter: the spanning tree leaves it out
 * ({@link FunctionEdges#withEntryFromCalls}) and one counter fewer counts the rest. Proved from
 * the whole static binary: no relocation but a call's names the start (function pointers, jump
 * tables, IRELATIVE resolvers, tail calls; .eh_frame aside, which the unwinder reads as a range),
 * no direct jump or branch from another function goes there (decoded), and it is not the ELF
 * entry. A recursive call's block must not depend on the entry in the function's own network
 * (else the count would follow from itself); callers must be counted by counters, not by their
 * callers in turn, so that convert needs no order among them.
 */
final class CallerCountedEntries {
    private static final Isa ISA = Isa.rv64();
    private static final Decoder DECODER = ISA.decoder(ISA.extensions());
    private static final int R_RISCV_JAL = 17;
    private static final int R_RISCV_CALL = 18;
    private static final int R_RISCV_CALL_PLT = 19;
    private static final Set<String> UNWIND_ONLY = Set.of(".eh_frame", ".splice.eh_frame");

    private CallerCountedEntries() {}

    /**
     * The networks with the entries their callers count.
     *
     * @param elf the input binary
     * @param networks the instrumented functions' networks (entries counted as usual)
     * @param functions every function of the binary
     * @param returns whether a call of the function at an address always comes back (a leaf: it
     *     calls nothing and has no ecall), so that a call after it in its block runs as often as the block
     * @return the networks, those of functions entered only by counted calls replaced
     */
    static Map<Function, FunctionEdges> apply(ElfFile elf, Map<Function, FunctionEdges> networks, List<Function> functions,
                                              java.util.function.LongPredicate returns) {
        Map<Function, FunctionEdges> out = new LinkedHashMap<>(networks);
        if (elf.header().type() != ElfHeader.ET_EXEC || elf.segments().stream()
                .anyMatch(s -> s.type() == Segment.PT_INTERP || s.type() == Segment.PT_DYNAMIC)) {
            return out; // a dynamic loader or a shared library may call in
        }
        Map<Long, Function> candidates = new HashMap<>();
        networks.keySet().forEach(f -> candidates.put(f.address(), f));
        candidates.remove(elf.header().entry());
        Map<Long, Function> siteOwner = new HashMap<>();
        Map<Long, CallSite> sites = new HashMap<>();
        Map<Long, Long> allCalls = new HashMap<>(); // every direct call of the networks: its address, its target
        for (Map.Entry<Function, FunctionEdges> n : networks.entrySet()) {
            Set<Integer> blocked = new HashSet<>(); // blocks with a call before that may not come back
            for (CallSite c : n.getValue().calls()) { // in address order
                allCalls.put(n.getKey().address() + c.offset(), c.target());
                if (!blocked.contains(c.block())) {
                    siteOwner.put(n.getKey().address() + c.offset(), n.getKey());
                    sites.put(n.getKey().address() + c.offset(), c);
                }
                if (c.target() < 0 || !returns.test(c.target())) {
                    blocked.add(c.block());
                }
            }
        }
        Set<Long> refused = new HashSet<>();
        Map<Long, Set<Long>> callsTo = new HashMap<>();
        List<Symbol> symbols = elf.symbols();
        for (RelocationSection rs : elf.relocations()) {
            if (!rs.target().isAllocated() || UNWIND_ONLY.contains(rs.target().name())) {
                continue;
            }
            for (Relocation r : rs.relocations()) {
                long s = r.symbolIndex() > 0 && r.symbolIndex() < symbols.size() ? symbols.get(r.symbolIndex()).value() : 0;
                long value = s + r.addend();
                if (!candidates.containsKey(value)) {
                    continue;
                }
                if (r.type() == R_RISCV_CALL || r.type() == R_RISCV_CALL_PLT) {
                    callsTo.computeIfAbsent(value, v -> new HashSet<>()).add(r.offset() + 4); // the jalr after the auipc
                } else if (r.type() == R_RISCV_JAL) {
                    callsTo.computeIfAbsent(value, v -> new HashSet<>()).add(r.offset());
                } else {
                    refused.add(value);
                }
            }
        }
        for (Function g : functions) {
            directTransfers(elf, g, candidates, callsTo, refused);
        }
        Set<Long> derived = new HashSet<>();
        Set<Long> callersOfDerived = new HashSet<>();
        for (Function f : networks.keySet()) {
            long a = f.address();
            if (!candidates.containsKey(a) || refused.contains(a) || callersOfDerived.contains(a)) {
                continue;
            }
            Set<Long> calls = callsTo.getOrDefault(a, Set.of());
            Set<Long> callers = new HashSet<>();
            boolean counted = !calls.isEmpty();
            for (long site : calls) {
                CallSite c = sites.get(site);
                counted &= c != null && c.target() == a;
                if (c != null) {
                    callers.add(siteOwner.get(site).address());
                }
            }
            // every direct call the networks know is one the relocations or the decoding found
            for (Map.Entry<Long, Long> c : allCalls.entrySet()) {
                if (c.getValue() == a && !calls.contains(c.getKey())) {
                    counted = false;
                }
            }
            if (!counted || callers.stream().anyMatch(g -> g != a && derived.contains(g))) {
                continue;
            }
            FunctionEdges net = networks.get(f);
            FunctionEdges d = net.withEntryFromCalls();
            if (d == net || !selfCallsIndependentOfTheEntry(d, f, calls)) {
                continue;
            }
            out.put(f, d);
            derived.add(a);
            callers.stream().filter(g -> g != a).forEach(callersOfDerived::add);
        }
        return out;
    }

    /**
     * Whether the entry edge is counted (left out of the tree) and the blocks of the function's
     * calls to itself have in-flows that do not depend on it: with every counter 0 and the entry 1,
     * those in-flows are 0 (counts are linear in the counters).
     */
    private static boolean selfCallsIndependentOfTheEntry(FunctionEdges d, Function f, Set<Long> calls) {
        int entry = d.entryAtStart();
        int[] counted = d.counters().counted();
        long[] values = new long[counted.length];
        boolean out = false;
        for (int k = 0; k < counted.length; k++) {
            if (counted[k] == entry) {
                values[k] = 1;
                out = true;
            }
        }
        if (!out) {
            return false; // in the tree: nothing to gain
        }
        long[] flow = d.counters().flows(values);
        long[] inflow = new long[d.nodes()];
        for (int i = 0; i < flow.length; i++) {
            inflow[d.edges().get(i).to()] += flow[i];
        }
        for (CallSite c : d.calls()) {
            if (calls.contains(f.address() + c.offset()) && inflow[c.block()] != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Adds a function's direct calls of candidates to {@code callsTo}, and marks the candidates its
     * direct jumps and branches reach from outside them (tail calls) as refused.
     */
    private static void directTransfers(ElfFile elf, Function g, Map<Long, Function> candidates, Map<Long, Set<Long>> callsTo,
                                         Set<Long> refused) {
        Section section = g.section();
        if (g.size() <= 0 || section == null || !section.isExecutable() || section.isNobits()
                || g.address() < section.address() || g.endAddress() > section.address() + section.size()) {
            return;
        }
        byte[] code = elf.contents(section);
        int base = (int) (g.address() - section.address());
        int size = (int) g.size();
        for (int at = 0; at < size; ) {
            int packed = DECODER.decodeAt(code, base + at, base + size);
            Opcode op = DECODER.opcode(packed);
            int length = Decoder.size(packed);
            if (op != null && op.hasBranchTarget()) {
                int bits = 0;
                for (int i = 0; i < Math.min(length, 4) && base + at + i < code.length; i++) {
                    bits |= (code[base + at + i] & 0xff) << (8 * i);
                }
                long target = g.address() + at + op.branchOffset(bits);
                if (candidates.containsKey(target)) {
                    ControlFlow flow = op.controlFlow(bits);
                    if (flow == ControlFlow.CALL) {
                        callsTo.computeIfAbsent(target, v -> new HashSet<>()).add(g.address() + at);
                    } else if (target != g.address()) {
                        refused.add(target); // a jump or branch in from elsewhere: an entry no call counts
                    }
                }
            }
            at += Math.max(length, 2);
        }
    }
}
