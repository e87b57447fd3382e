package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.bat.BatTables;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.isa.Decoder;
import dev.splice.isa.Extension;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.listing.Assembler;
import dev.splice.profile.Fdata;
import dev.splice.profile.ProfileTranslation;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A profile sampled on the rewritten binary translates back to the same locations as on the original. */
class InsertBatTest {
    private static final String PROBE = "addi sp, sp, -16\nsd t0, 8(sp)\nrdcycle t0\nld t0, 8(sp)\naddi sp, sp, 16\n";

    @Test
    void samplesTranslateBackToTheOriginalInstructions() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops.relocs"));
        byte[] probe = Assembler.assemble(PROBE, "probe").bytes();
        List<String> names = List.of("hot_loop", "classify", "fib");
        List<Insertion> ins = new ArrayList<>();
        for (String n : names) {
            for (long a : InsertTest.blockStarts(elf, elf.function(n).orElseThrow())) {
                ins.add(new Insertion(a, PROBE, BranchTarget.INSERTED));
            }
        }
        ElfFile out = ElfFile.parse(Inserter.insert(elf, ins), "rewritten");
        BatTables.read(out); // the rewritten binary has tables
        StringBuilder onRewritten = new StringBuilder();
        StringBuilder onOriginal = new StringBuilder();
        int samples = 0;
        for (String n : names) {
            Function before = elf.function(n).orElseThrow();
            Function after = out.function(n).orElseThrow();
            List<Long> original = PatchFixtures.boundaries(elf, before);
            List<Long> rewritten = PatchFixtures.boundaries(out, after);
            byte[] code = out.contents(after.section());
            int k = 0;
            for (int r = 0; r < rewritten.size(); r++) {
                long a = rewritten.get(r);
                int at = (int) (a - after.section().address());
                if (at + probe.length <= code.length
                        && Arrays.equals(Arrays.copyOfRange(code, at, at + probe.length), probe)) {
                    // a probe: its instructions count for the original instruction it precedes
                    for (int j = 0; j < 5; j++) {
                        onRewritten.append(String.format("S %x %d%n", rewritten.get(r + j), 1000 + k));
                    }
                    onOriginal.append(String.format("S %x %d%n", original.get(k), 5L * (1000 + k)));
                    r += 4;
                    continue;
                }
                if (k >= original.size()) {
                    break; // the jump back added after a function that could fall through
                }
                onRewritten.append(String.format("S %x %d%n", a, k + 1));
                onOriginal.append(String.format("S %x %d%n", original.get(k), k + 1));
                k++;
                samples++;
            }
            assertEquals(original.size(), k, n + ": every original instruction was found in the copy");
        }
        assertTrue(samples > 50);
        Fdata expected = translate(elf, onOriginal, true);
        Fdata actual = translate(out, onRewritten, true);
        assertEquals(expected.samples(), actual.samples());
    }

    /**
     * A branch profile (the loop's back edge and the fall-through trace through its body) of a
     * binary with fragments at the loop head and in the middle of the body translates to exactly
     * the edges of the same profile on the original: inserted code adds no blocks.
     */
    @Test
    void branchesAndFallThroughsTranslateBackToTheOriginalEdges() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops.relocs"));
        long[] loop = backEdge(elf, elf.function("hot_loop").orElseThrow());
        long head = loop[1];
        long inBody = PatchFixtures.boundaries(elf, elf.function("hot_loop").orElseThrow()).stream()
                .filter(a -> a > head).findFirst().orElseThrow();
        List<Insertion> ins = List.of(
                new Insertion(head, PROBE, BranchTarget.INSERTED),
                new Insertion(inBody, "nop\nnop\n", BranchTarget.INSERTED));
        ElfFile out = ElfFile.parse(Inserter.insert(elf, ins), "rewritten");
        long[] moved = backEdge(out, out.function("hot_loop").orElseThrow());

        BatTables.read(out); // the rewritten binary has tables
        StringBuilder onRewritten = new StringBuilder(String.format("B %x %x 999 3%nF %x %x 1000%n", moved[0], moved[1], moved[1], moved[0]));
        StringBuilder onOriginal = new StringBuilder(String.format("B %x %x 999 3%nF %x %x 1000%n", loop[0], loop[1], loop[1], loop[0]));

        assertEquals(translate(elf, onOriginal, false).branches(), translate(out, onRewritten, false).branches());
    }

    /**
     * The table's blocks of a moved function are llvm-bolt-22's blocks of the input function
     * ({@code --print-cfg}): calls do not end blocks, a jump right after a conditional branch
     * joins its block.
     */
    @Test
    void theTablesBlocksAreBoltsBlocksOfTheInput() {
        Path input = TestPrograms.rv64("loops.relocs");
        ElfFile elf = ElfFile.read(input);
        List<String> names = List.of("main", "hot_loop", "classify", "fib");
        List<Insertion> ins = new ArrayList<>();
        for (String n : names) {
            ins.add(new Insertion(elf.function(n).orElseThrow().address(), "nop\n", BranchTarget.INSERTED));
        }
        ElfFile out = ElfFile.parse(Inserter.insert(elf, ins), "rewritten");
        BatTables bat = BatTables.read(out);
        Map<String, List<Long>> bolt = boltBlockStarts(input, names);
        for (String n : names) {
            List<Long> table = new ArrayList<>(bat.blocks(out.function(n).orElseThrow().address()).byOffset().keySet());
            assertEquals(bolt.get(n), table, n);
        }
        assertTrue(bolt.get("main").size() < PatchFixtures.boundaries(elf, elf.function("main").orElseThrow()).size() / 4);
    }

    /**
     * The same on a PIE whose computed-goto labels are targets of R_RISCV_RELATIVE relocations:
     * llvm-bolt-22 makes them entry points of {@code run}, so they start blocks (one follows ordinary
     * code, where no rule would start a block otherwise); before, the table had no block there.
     */
    @Test
    void theTablesBlocksAreBoltsBlocksOfAPieWithComputedGotoLabels(@org.junit.jupiter.api.io.TempDir Path dir)
            throws java.io.IOException {
        Path input = dev.splice.testing.ComputedGotoPie.build(dir, "cgoto-pie", true);
        ElfFile elf = ElfFile.read(input);
        ElfFile out = ElfFile.parse(Inserter.insert(elf, List.of(new Insertion(elf.function("run").orElseThrow().address(),
                "nop\n", BranchTarget.INSERTED))), "rewritten");
        List<Long> table = new ArrayList<>(BatTables.read(out).blocks(out.function("run").orElseThrow().address()).byOffset().keySet());
        // every function: llvm-bolt-22 --funcs=run dies of SIGSEGV on this input
        assertEquals(boltBlockStarts(input, List.of()).get("run"), table);
    }

    /** The input offsets of the basic blocks llvm-bolt-22 prints for each function ({@code --print-cfg}; none named: all). */
    private static Map<String, List<Long>> boltBlockStarts(Path binary, List<String> functions) {
        Path out = binary.getFileSystem().getPath(System.getProperty("java.io.tmpdir"), "splice-bat-cfg-" + ProcessHandle.current().pid());
        try {
            List<String> command = new ArrayList<>(List.of("llvm-bolt-22", binary.toString(), "-o", out.toString(), "--print-cfg"));
            if (!functions.isEmpty()) {
                command.add("--funcs=" + String.join(",", functions));
            }
            Tools.Result r = Tools.run(command, null, 300).checked("llvm-bolt-22");
            Map<String, List<Long>> starts = new HashMap<>();
            List<Long> current = null;
            boolean blockHeader = false;
            for (String line : r.stdout().split("\n")) {
                Matcher function = Pattern.compile("^Binary Function \"(.*)\" after building cfg").matcher(line);
                if (function.find()) {
                    current = starts.computeIfAbsent(function.group(1), k -> new ArrayList<>());
                    continue;
                }
                if (current == null) {
                    continue;
                }
                if (line.matches("^\\.L\\S+ \\(\\d+ instructions.*")) {
                    blockHeader = true;
                } else if (blockHeader) {
                    Matcher instruction = Pattern.compile("^\\s+([0-9a-f]{8}):").matcher(line);
                    if (instruction.find()) {
                        current.add(Long.parseLong(instruction.group(1), 16));
                        blockHeader = false;
                    }
                }
            }
            return starts;
        } finally {
            try {
                java.nio.file.Files.deleteIfExists(out);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }

    /** A pre-aggregated profile translated through the public API. */
    private static Fdata translate(ElfFile binary, CharSequence profile, boolean basicSamples) {
        return ProfileTranslation.translate(binary, new java.io.StringReader(profile.toString()),
                ProfileTranslation.InputFormat.PRE_AGGREGATED, new ProfileTranslation.Options(basicSamples, false, null, null)).fdata();
    }

    /** The loop's backward branch: {address of the branch, its target}. */
    private static long[] backEdge(ElfFile elf, Function f) {
        Decoder decoder = Isa.rv64().decoder(Extension.all());
        byte[] code = elf.contents(f.section());
        for (long a : PatchFixtures.boundaries(elf, f)) {
            int at = (int) (a - f.section().address());
            int parcel = (code[at] & 0xff) | (code[at + 1] & 0xff) << 8;
            int size = Decoder.length(parcel);
            int bits = size == 2 ? parcel : parcel | (code[at + 2] & 0xff) << 16 | (code[at + 3] & 0xff) << 24;
            Opcode op = decoder.decode(bits, size);
            if (op != null && op.hasBranchTarget() && op.branchOffset(bits) < 0) {
                return new long[] {a, a + op.branchOffset(bits)};
            }
        }
        throw new AssertionError(f.name() + " has no backward branch");
    }
}
