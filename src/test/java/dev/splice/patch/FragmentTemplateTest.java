package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.listing.Assembler;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import dev.splice.patch.PatchException.Reason;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Template fields, their numbering, sizes from assembled code and the per-point cost. */
class FragmentTemplateTest {
    @TempDir Path tmp;

    /** Stores {@code value} (an li operand or an la symbol) into the insertion's counter slot; saves t0, t1. */
    static String store(String load) {
        return "addi sp, sp, -16\nsd t0, 0(sp)\nsd t1, 8(sp)\n" + load + "\nla t0, {counter}\nsd t1, 0(t0)\n"
                + "ld t0, 0(sp)\nld t1, 8(sp)\naddi sp, sp, 16\n";
    }

    static long[] run(Path binary, Path counterFile, String... args) throws Exception {
        Files.deleteIfExists(counterFile);
        Tools.Result r = PatchFixtures.qemu(binary, args);
        assertTrue(Files.exists(counterFile), "no counter file from " + binary + " (exit " + r.exitCode() + "): " + r.stderr());
        return slots(counterFile);
    }

    /** The 64-bit little-endian counter slots of a counter file. */
    static long[] slots(Path counterFile) throws java.io.IOException {
        byte[] b = Files.readAllBytes(counterFile);
        long[] out = new long[b.length / 8];
        java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).asLongBuffer().get(out);
        return out;
    }

    /** The address of counter slot 0 in an output: its .splice.bss section's start plus the runtime's scratch (and its symbol). */
    static long counters(Path output) {
        ElfFile out = ElfFile.read(output);
        long slot0 = out.section(DataArea.NAME).orElseThrow().address() + DataArea.SCRATCH;
        assertEquals(slot0, out.symbol("__splice_counters").orElseThrow().value());
        return slot0;
    }

    @Test
    void everyFieldHasItsValueAtEveryPointNumberedByAddressThenCommandLineOrder() throws Exception {
        Path in = TestPrograms.rv64("fragment_calls.relocs");
        ElfFile elf = ElfFile.read(in);
        Function work = elf.function("work").orElseThrow();
        long entry = work.address();
        long later = PatchFixtures.boundaries(elf, work).get(3);
        Path file = tmp.resolve("fields.counters");
        // given out of address order: numbering is by address, then in the order given
        byte[] out = Rewrite.of(elf)
                .insert(new Insertion(later, store("li t1, {offset}"), "offset", BranchTarget.INSERTED))
                .insert(new Insertion(entry, store("li t1, {addr}"), "addr", BranchTarget.INSERTED))
                .insert(new Insertion(entry, store("li t1, {id}"), "id", BranchTarget.INSERTED))
                .insert(new Insertion(entry, store("la t1, {func}"), "func", BranchTarget.INSERTED))
                .insert(new Insertion(later, store("la t1, {counter}"), "counter", BranchTarget.INSERTED))
                .counterFile(file.toString()).run().bytes();
        Path patched = PatchFixtures.write(tmp, "fields", out);
        long[] c = run(patched, file, "return", "5");
        long base = counters(patched);
        assertEquals(5, c.length);
        assertEquals(entry, c[0], "{addr} of insertion 0");
        assertEquals(1, c[1], "{id} of insertion 1");
        assertEquals(work.address(), c[2], "{func} (as a symbol) of insertion 2");
        assertEquals(later - entry, c[3], "{offset} of insertion 3");
        assertEquals(base + 8 * 4, c[4], "{counter} of insertion 4");
        PatchFixtures.assertSameRun(in, patched, "return", "5");
    }

    @Test
    void unknownFieldsAreRefusedWithTheFragmentsNameAndLineColumn() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("fragment_calls.relocs"));
        long a = elf.function("work").orElseThrow().address();
        PatchException e = assertThrows(PatchException.class, () -> Inserter.insert(elf,
                List.of(new Insertion(a, "nop # {comments are not fields}\n  li a0, {pc}\n", "probe.s", BranchTarget.INSERTED))));
        assertEquals(Reason.BAD_LISTING, e.reason());
        assertTrue(e.getMessage().startsWith("probe.s:2:10: unknown template field {pc}"), e.getMessage());
    }

    @Test
    void aCommentOnlyChangeChangesNoByteOfTheOutput() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops.relocs"));
        String fragment = "addi sp, sp, -16\nsd t0, 0(sp)\nla t0, __splice_counters\nld t0, 0(t0)\nld t0, 0(sp)\naddi sp, sp, 16\n";
        String commented = "# " + "a long comment ".repeat(300) + "\n" + fragment.replace("\n", "   # and more\n");
        for (String f : List.of("fib", "classify", "hot_loop", "main")) {
            Function fn = elf.function(f).orElseThrow();
            List<Insertion> plain = PatchFixtures.boundaries(elf, fn).stream()
                    .map(a -> new Insertion(a, fragment, BranchTarget.INSERTED)).toList();
            List<Insertion> long_ = PatchFixtures.boundaries(elf, fn).stream()
                    .map(a -> new Insertion(a, commented, BranchTarget.INSERTED)).toList();
            try {
                byte[] x = Inserter.insert(elf, plain);
                assertArrayEquals(x, Inserter.insert(elf, long_), f);
            } catch (PatchException e) {
                assertEquals(Reason.INSIDE_PC_RELATIVE_PAIR, e.reason(), e.getMessage());
                List<Long> points = Rewrite.of(elf).insertionPoints(fn);
                assertArrayEquals(Inserter.insert(elf, points.stream().map(a -> new Insertion(a, fragment, BranchTarget.INSERTED)).toList()),
                        Inserter.insert(elf, points.stream().map(a -> new Insertion(a, commented, BranchTarget.INSERTED)).toList()), f);
            }
        }
    }

    /**
     * 100,000 points of a counter fragment (and of one that calls the runtime and a function of
     * the binary) are assembled once, and every point's bytes equal those of the
     * text assembled at the point's address with the point's values.
     */
    @Test
    void aTemplateIsAssembledOnceAndRelocatedPerPointToTheBytesOfItsSubstitutedText() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("fragment_calls.relocs"));
        Input in = Input.read(elf);
        FragmentAssembler fragments = Inserter.fragmentAssembler(in, Counters.NONE, 0);
        FragmentSymbols symbols = fragments.symbols();
        String counter = FragmentExamples.read("block-counter.s");
        String calls = "addi sp, sp, -16\nsd ra, 8(sp)\nsd a0, 0(sp)\nla a0, {counter}\ncall __splice_count\n"
                + "li a0, 3\ncall record\nld a0, 0(sp)\nld ra, 8(sp)\naddi sp, sp, 16\n";
        long record = elf.function("record").orElseThrow().address();
        long runtime = 0x400000;
        int points = 100_000;
        byte[] out = new byte[64 * 1024];
        for (String fragment : List.of(counter, calls)) {
            int before = fragments.assemblerRuns();
            for (int k = 0; k < points; k++) {
                Item item = new Item(Kind.FRAGMENT, 0x10000 + 2L * k, 0);
                item.addInsertion(new Insertion(item.oldAddress, fragment, "f", BranchTarget.INSERTED));
                PointFields[] p = {new PointFields(item.oldAddress, "work", 2L * k, k, symbols.data().counter(k))};
                fragments.prepare(item, p);
                item.newAddress = runtime + 0x1000 + 40L * k;
                fragments.place(item, p, runtime, out, 0);
                if (k % 9973 == 0) {
                    // the text assembled at the point, with the point's values for the runtime and the fields
                    Map<String, Long> externals = Map.of("__splice_count", runtime + new SpliceRuntime(null).functions().get("__splice_count"),
                            "record", record, FragmentTemplate.Field.COUNTER.symbol(), p[0].counter());
                    byte[] expected = Assembler.assemble(FragmentTemplate.parse(fragment, "f").symbolic(p[0]), "f",
                            item.newAddress, externals).bytes();
                    assertArrayEquals(expected, Arrays.copyOf(out, expected.length), "point " + k);
                    assertEquals(expected.length, item.size());
                }
            }
            int runs = fragments.assemblerRuns() - before;
            assertEquals(1, runs, "assembler runs for " + points + " points");
        }
    }
}
