package dev.splice;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.cfg.EdgeProfileException;
import dev.splice.cfg.FunctionEdges;
import dev.splice.cfg.riscv.RiscVEdges;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.TestPrograms;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which entries {@link CallerCountedEntries} leaves to the callers in {@code loops.relocs}
 * (llvm-objdump-22 and readelf show the code: fib is called by {@code jal} from main+0x66, after
 * the call of the leaf hot_loop in the same block, and from its own loop at +0x30; main's address
 * is loaded by _start into a0, an R_RISCV_PCREL_HI20). The counts are checked under QEMU by
 * {@code InstrumentationTest}.
 */
class CallerCountedEntriesTest {
    @Test
    void aRecursiveFunctionCalledOnlyByDirectCallsGetsItsEntryFromTheCallSites() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops.relocs"));
        RiscVEdges.Binary binary = RiscVEdges.Binary.of(elf);
        List<Function> functions = new ArrayList<>(elf.functions());
        functions.sort(java.util.Comparator.comparingLong(Function::address));
        Map<Function, FunctionEdges> networks = new LinkedHashMap<>();
        java.util.Set<Long> seen = new java.util.HashSet<>();
        for (Function f : functions) {
            if (f.size() <= 0 || f.section() == null || !f.section().isExecutable() || !seen.add(f.address())
                    || f.name().equals("_exit")) {
                continue;
            }
            try {
                networks.put(f, RiscVEdges.of(binary, f, RiscVEdges.notAfterAuipc(elf, f)));
            } catch (EdgeProfileException e) {
                // left alone, as instrument does
            }
        }
        Map<Long, Function> byAddress = new java.util.HashMap<>();
        functions.forEach(f -> byAddress.putIfAbsent(f.address(), f));
        java.util.function.LongPredicate leaf = t -> {
            Function f = byAddress.get(t);
            return f != null && f.size() > 0 && LoopPromotion.leafRegisters(elf.contents(f.section()),
                    (int) (f.address() - f.section().address()), (int) f.size(), java.util.Set.of()) >= 0;
        };
        Map<Function, FunctionEdges> out = CallerCountedEntries.apply(elf, networks, functions, leaf);
        Function fib = functions.stream().filter(f -> f.name().equals("fib")).findFirst().orElseThrow();
        FunctionEdges before = networks.get(fib);
        FunctionEdges after = out.get(fib);
        int entry = after.entryAtStart();
        assertEquals(FunctionEdges.Probe.CALLERS, after.edges().get(entry).probe(), "fib's entry is its callers'");
        assertTrue(java.util.Arrays.stream(after.counters().counted()).anyMatch(c -> c == entry), "out of the tree");
        int fragmentsBefore = before.counters().counted().length;
        int fragmentsAfter = after.counters().counted().length - 1; // the entry has no fragment
        assertEquals(fragmentsBefore - 1, fragmentsAfter, "one fragment fewer");
        Function main = functions.stream().filter(f -> f.name().equals("main")).findFirst().orElseThrow();
        assertSame(networks.get(main), out.get(main), "main's address is taken (_start loads it): its entry keeps its count");
        // Without hot_loop known to come back, main's call of fib (after hot_loop's, same block) is not counted.
        Map<Function, FunctionEdges> strict = CallerCountedEntries.apply(elf, networks, functions, t -> false);
        assertSame(networks.get(fib), strict.get(fib), "a call after a call that may not return does not count");
    }
}
