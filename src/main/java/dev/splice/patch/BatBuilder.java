package dev.splice.patch;

import dev.splice.bat.BatFunction;
import dev.splice.bat.BatMap;
import dev.splice.bat.BatTables;
import dev.splice.bat.BatWriter;
import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.LandingPads;
import dev.splice.cfg.RelativeRelocationTargets;
import dev.splice.cfg.riscv.RiscVCfg;
import dev.splice.cfg.riscv.RiscVDataReferences;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import java.util.Arrays;
import java.util.Map;

/**
 * The .note.bolt_bat of a rewritten binary: for each moved function, an entry for every
 * instruction of the new copy, mapping it to the original instruction (inserted instructions map
 * to the instruction they precede; the added jump back after the function maps to its last
 * instruction). BOLT reads every entry without the branch bit as a block start (that is how
 * perf2bolt finds fall-throughs), so only the first entry of each of BOLT's blocks of the input
 * function goes without it; every other entry carries the bit: it still translates samples
 * exactly but makes no block.
 */
final class BatBuilder {
    private final MovedCode moved;
    private final Trampolines trampolines;
    private final Map<MovedFunction, long[]> inputBlocks;
    /** The input's own BAT when the input is a Splice output (a second pass), else null. */
    private final BatTables previous;

    /**
     * @param inputBlocks {@link #inputBlocks}: they depend only on the input and on which functions
     *     move, so the other core makes them while this one lays out the code
     * @param previous the input's BAT when it is a rewritten binary (the new BAT composes both
     *     maps: it maps the output to the first input), else null
     */
    BatBuilder(MovedCode moved, Trampolines trampolines, Map<MovedFunction, long[]> inputBlocks, BatTables previous) {
        this.moved = moved;
        this.trampolines = trampolines;
        this.inputBlocks = inputBlocks;
        this.previous = previous;
    }

    /** The block starts of every moved function's input function (see {@link InputBlocks}). */
    static Map<MovedFunction, long[]> inputBlocks(ElfFile input, MovedCode moved) {
        InputBlocks blocks = new InputBlocks(input);
        Map<MovedFunction, long[]> starts = new java.util.IdentityHashMap<>();
        for (MovedFunction m : moved.functions()) {
            starts.put(m, blocks.starts(m));
        }
        return starts;
    }

    byte[] encode() {
        BatWriter writer = new BatWriter();
        PreviousBat before = previous == null ? null : new PreviousBat(previous);
        for (MovedFunction m : moved.functions()) {
            long start = m.function.address();
            BatFunction first = before == null ? null : before.hot(start);
            long[] blocks = first == null ? inputBlocks.get(m) : before.blockStarts(start);
            BatWriter.Function f = writer.function(m.newStart, first == null ? 0 : first.hash(), blocks.length);
            for (int index = 0; index < blocks.length; index++) {
                f.block(blocks[index], index, 0);
            }
            // A function the first pass moved: its offsets are the first output's, which the first map takes to the input.
            Entries entries = new Entries(f, blocks, new boolean[blocks.length], first == null ? null : first.map());
            long lastInput = 0;
            for (Item i : m.items) {
                long out = i.newAddress - m.newStart;
                switch (i.kind) {
                    case FRAGMENT -> {
                        long input = i.oldAddress - start;
                        for (long o = 0; o < i.size(); o += 2) {
                            entries.add(out + o, input);
                        }
                    }
                    case FALLTHROUGH -> entries.add(out, lastInput);
                    default -> {
                        if (i.oldAddress == m.function.endAddress()) {
                            entries.add(out, lastInput); // the trap after a function that ends its section
                            continue;
                        }
                        long input = i.oldAddress - start;
                        boolean branch = i.kind == Kind.BRANCH || i.kind == Kind.JUMP;
                        entries.add(out, input);
                        if (branch) {
                            for (long o = 4; o < i.size(); o += 4) {
                                entries.add(out + o, input);
                            }
                        }
                        lastInput = input;
                    }
                }
            }
            oldEntry(f, m);
            if (first != null) {
                before.copyColdFragments(start, f);
                first.secondaryEntryPoints().forEach(f::secondaryEntryPoint);
            }
        }
        if (before != null) {
            before.copyUnmoved(writer, moved);
        }
        return writer.encodeNote();
    }

    /**
     * The old entry (the trampoline to the copy, under its {@code NAME.splice.org} symbol) as a
     * cold fragment of the copy whose every entry maps to input offset 0: perf2bolt-22 then takes
     * a call through the old entry for a call to the function's entry, as it was in the input. A
     * real cold fragment never maps to offset 0 (BOLT does not split off the entry block), which
     * is how Splice's translation recognises the trampoline's own jump to the copy and leaves it
     * out (perf2bolt counts it as a call of the function from its entry).
     */
    private void oldEntry(BatWriter.Function f, MovedFunction m) {
        BatWriter.Fragment old = f.coldFragment(m.function.address());
        old.entry(0, 0, false);
        long jump = trampolines.jumpOffset(m);
        if (jump != 0) {
            old.entry(jump, 0, true);
        }
    }

    /**
     * The block starts of the input functions as perf2bolt-22 and llvm-bolt-22 form them (calls do
     * not end blocks; a jump right after a conditional branch joins its block; in a binary with
     * relocations every code address data refers to is a label): the blocks a profile of the input
     * is counted in, so a translated profile of the output must use the same ones.
     */
    private static final class InputBlocks {
        private final ElfFile elf;
        private final Map<Long, long[]> landingPads;
        private final long[] dataReferences;
        /** Addresses the loader's relative relocations store: perf2bolt-22 makes those inside a function entry points (docs/cfg.md). */
        private final long[] relativeTargets;
        private final Map<Integer, byte[]> sectionBytes = new java.util.HashMap<>();

        InputBlocks(ElfFile elf) {
            this.elf = elf;
            this.landingPads = LandingPads.of(elf);
            this.dataReferences = RiscVDataReferences.of(elf);
            this.relativeTargets = RelativeRelocationTargets.of(elf);
        }

        /** The offsets of the blocks of {@code m}'s input function, ascending, 0 first. */
        long[] starts(MovedFunction m) {
            Function f = m.function;
            byte[] code = sectionBytes.computeIfAbsent(f.section().index(), i -> elf.contents(f.section()));
            int base = (int) (f.address() - f.section().address());
            int size = (int) f.size();
            int[] pads = RiscVDataReferences.within(landingPads.getOrDefault(f.address(), new long[0]), f.address(), size);
            int[] entries = Arrays.stream(RiscVDataReferences.within(relativeTargets, f.address(), size)).filter(o -> o != 0).toArray();
            ControlFlowGraph cfg = RiscVCfg.of(code, base, size, entries, pads,
                    RiscVDataReferences.within(dataReferences, f.address(), size),
                    dataReferences.length > 0, false);
            if (cfg == null) {
                // perf2bolt builds no CFG (a conditional branch leaves the function): the write-back's view.
                cfg = RiscVCfg.of(code, base, size, pads);
            }
            if (cfg == null) {
                // Decoded from start to end, yet a forged input (a function outside its section) can still defeat BOLT's rules.
                throw new PatchException(PatchException.Reason.MALFORMED_INPUT, elf.name() + ": function '" + f.name()
                        + "' at 0x" + Long.toHexString(f.address()) + ": BOLT's CFG rules form no blocks of it in section "
                        + f.section().name() + ", so no BAT can describe its move", f.address());
            }
            return Arrays.stream(cfg.blockStarts()).asLongStream().toArray();
        }
    }

    /**
     * Adds entries, keeping the branch bit off only on the first entry of each input block; with a
     * {@code firstMap}, input offsets are the first output's and are translated by it first.
     */
    private record Entries(BatWriter.Function function, long[] blockStarts, boolean[] started, BatMap firstMap) {
        void add(long outputOffset, long offset) {
            // Every instruction start of the first output has an entry: the translation is exact.
            long inputOffset = firstMap == null ? offset : firstMap.translate(offset, true);
            int b = Arrays.binarySearch(blockStarts, inputOffset);
            boolean blockStart = b >= 0 && !started[b];
            if (blockStart) {
                started[b] = true;
            }
            function.entry(outputOffset, inputOffset, !blockStart);
        }
    }
}
