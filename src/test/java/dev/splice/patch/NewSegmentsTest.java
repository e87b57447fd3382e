package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.Segment;
import dev.splice.elf.Symbol;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The segments insertion adds: a new program header table that keeps every entry of the old one
 * (PT_RISCV_ATTRIBUTES and PT_GNU_STACK included) and is found where QEMU and Linux look for it;
 * the R X segment of the moved code; the zeroed R W data area.
 */
class NewSegmentsTest {
    private static final String NOP = "addi x0, x0, 0\n";
    @TempDir Path tmp;

    @Test
    void newProgramHeaderTableKeepsEveryEntryAndTheProgramsRun() throws Exception {
        // loops: C; exceptions: C++ with exceptions. Static glibc reads PT_TLS through AT_PHDR in both.
        for (String name : List.of("loops.relocs", "exceptions.relocs")) {
            Path in = TestPrograms.rv64(name);
            ElfFile elf = ElfFile.read(in);
            Rewrite.Result r = Rewrite.of(elf).insertAtEntries(NOP, "nop", BranchTarget.INSERTED).reserveData(4096).run();
            Path out = PatchFixtures.write(tmp, name + ".out", r.bytes());
            ElfFile o = ElfFile.read(out);

            List<Segment> added = new ArrayList<>(o.segments());
            for (Segment s : elf.segments()) {
                Segment kept = added.stream().filter(t -> sameExceptIndex(s, t) || grownOver(s, t, o)
                        || movedNotes(elf, s, o, t)).findFirst()
                        .orElseThrow(() -> new AssertionError(name + ": lost " + s));
                added.remove(kept);
            }
            // the code's; the program's R W segment grew over the data area, and the table grew in place
            assertEquals(1, added.size(), name + ": " + added);
            assertEquals(elf.header().phoff(), o.header().phoff());
            assertTrue(added.stream().allMatch(Segment::isLoad), added.toString());
            assertLoadable(o, name);

            Section text = o.section(NewSection.NAME).orElseThrow();
            assertTrue(covered(o, text, Segment.PF_R | Segment.PF_X), name + ": .splice.text not in an R X PT_LOAD");
            Section bss = o.section(DataArea.NAME).orElseThrow();
            assertEquals(Section.SHT_NOBITS, bss.type());
            assertEquals(4096, bss.size());
            assertTrue(covered(o, bss, Segment.PF_R | Segment.PF_W), name + ": .splice.bss not in an R W PT_LOAD");
            Symbol data = o.symbol(DataArea.SYMBOL).orElseThrow();
            assertEquals(bss.address(), data.value());
            assertTrue(text.address() >= bss.address() + bss.size(), "the code lies above the data area");

            PatchFixtures.assertSameRun(in, out);
            assertReadelfQuiet(out);
            PeerTools.assertReadableWithoutWarnings(out);
            assertStrippedOutputsRun(in, out);
        }
    }

    /**
     * Without a data area the table grows in place (the notes that follow it move after the code),
     * where loaders and GNU strip expect it: stripped outputs still run.
     */
    @Test
    void tableGrowsInPlaceAndStrippedOutputsRun() throws Exception {
        for (String name : List.of("loops.relocs", "exceptions.relocs")) {
            Path in = TestPrograms.rv64(name);
            ElfFile elf = ElfFile.read(in);
            Path out = PatchFixtures.write(tmp, name + ".out",
                    Rewrite.of(elf).insertAtEntries(NOP, "nop", BranchTarget.INSERTED).run().bytes());
            ElfFile o = ElfFile.read(out);
            assertEquals(elf.header().phoff(), o.header().phoff(), name + ": the table stays");
            assertEquals(elf.segments().size() + 1, o.segments().size());
            assertLoadable(o, name);
            assertEquals(elf.buildId().isPresent(), o.buildId().isPresent());
            for (String note : List.of(".note.gnu.build-id", ".note.ABI-tag")) {
                Section moved = o.section(note).orElseThrow();
                assertTrue(covered(o, moved, Segment.PF_R | Segment.PF_X), name + ": " + note + " is mapped");
                assertTrue(o.segments().stream().anyMatch(g -> g.type() == Segment.PT_NOTE && g.offset() <= moved.offset()
                        && moved.offset() + moved.size() <= g.offset() + g.fileSize()), name + ": PT_NOTE covers " + note);
            }
            PatchFixtures.assertSameRun(in, out);
            assertReadelfQuiet(out);
            PeerTools.assertReadableWithoutWarnings(out);

            assertStrippedOutputsRun(in, out);
        }
    }

    /** GNU strip and objcopy --strip-all of the output run as the input does; llvm-strip-22 takes it where it takes the input. */
    private void assertStrippedOutputsRun(Path in, Path out) {
        String name = out.getFileName().toString();
        Path stripped = tmp.resolve(name + ".stripped");
        Path copied = tmp.resolve(name + ".strip-all");
        for (List<String> cmd : List.of(List.of("riscv64-linux-gnu-strip", out.toString(), "-o", stripped.toString()),
                List.of("riscv64-linux-gnu-objcopy", "--strip-all", out.toString(), copied.toString()))) {
            Tools.Result r = Tools.run(cmd, "", 120);
            assertTrue(r.exitCode() == 0 && r.stderr().isBlank(), cmd + ": " + r.stderr());
        }
        for (Path p : List.of(stripped, copied)) {
            assertTrue(p.toFile().setExecutable(true));
            assertTrue(ElfFile.read(p).symbols().size() <= 1, p + " is stripped");
            PatchFixtures.assertSameRun(in, p);
        }
        // llvm-strip-22 refuses these inputs (.rela.dyn links .symtab); where it takes the input it must take the output.
        Tools.Result onInput = Tools.run(List.of("llvm-strip-22", in.toString(), "-o", tmp.resolve("in.llvm").toString()),
                "", 120);
        Tools.Result onOutput = Tools.run(List.of("llvm-strip-22", out.toString(), "-o",
                tmp.resolve(name + ".llvm").toString()), "", 120);
        assertEquals(onInput.exitCode() == 0, onOutput.exitCode() == 0, onOutput.stderr());
        if (onOutput.exitCode() == 0) {
            PatchFixtures.assertSameRun(in, tmp.resolve(name + ".llvm"));
        }
    }

    /** {@code b} is PT_NOTE {@code a} moved with the notes it covers (the build-id changes, the ABI tag does not). */
    private static boolean movedNotes(ElfFile in, Segment a, ElfFile out, Segment b) {
        if (a.type() != Segment.PT_NOTE || b.type() != Segment.PT_NOTE || a.fileSize() != b.fileSize()
                || a.flags() != b.flags() || a.alignment() != b.alignment()) {
            return false;
        }
        Section first = out.section(".note.gnu.build-id").orElseThrow();
        return b.offset() == first.offset() && b.virtualAddress() == first.address() && java.util.Arrays.equals(
                in.contents(in.section(".note.ABI-tag").orElseThrow()), out.contents(out.section(".note.ABI-tag").orElseThrow()));
    }

    /** {@code b} is the program's R W segment {@code a} with its memory grown over the data area. */
    private static boolean grownOver(Segment a, Segment b, ElfFile out) {
        Section bss = out.section(DataArea.NAME).orElseThrow();
        return a.isLoad() && b.isLoad() && a.flags() == (Segment.PF_R | Segment.PF_W) && a.flags() == b.flags()
                && a.offset() == b.offset() && a.virtualAddress() == b.virtualAddress() && a.fileSize() == b.fileSize()
                && b.memorySize() == bss.address() + bss.size() - b.virtualAddress() && a.memorySize() < b.memorySize();
    }

    @Test
    void dataAreaIsZeroAtStartAndWritable() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        ElfFile elf = ElfFile.read(in);
        long main = elf.function("main").orElseThrow().address();
        // The area's address does not depend on the fragments: learn it from a first output.
        long area = ElfFile.parse(Rewrite.of(elf).insert(new Insertion(main, NOP, BranchTarget.INSERTED))
                .reserveData(2048).run().bytes(), "first").symbol(DataArea.SYMBOL).orElseThrow().value();
        // At main's entry: read the first and the last word (both 0), store 'A' + their OR, then write(1, area, 1).
        String fragment = String.join("\n",
                "addi sp, sp, -32", "sd a0, 0(sp)", "sd a1, 8(sp)", "sd a2, 16(sp)", "sd a7, 24(sp)",
                "li t0, " + area, "ld t1, 0(t0)", "ld t2, 2040(t0)", "or t1, t1, t2", "addi t1, t1, 65", "sd t1, 0(t0)",
                "addi a0, x0, 1", "addi a1, t0, 0", "addi a2, x0, 1", "addi a7, x0, 64", "ecall",
                "ld a0, 0(sp)", "ld a1, 8(sp)", "ld a2, 16(sp)", "ld a7, 24(sp)", "addi sp, sp, 32", "");
        byte[] bytes = Rewrite.of(elf).insert(new Insertion(main, fragment, BranchTarget.INSERTED)).reserveData(2048)
                .run().bytes();
        Path out = PatchFixtures.write(tmp, "loops.data", bytes);
        assertEquals(area, ElfFile.read(out).symbol(DataArea.SYMBOL).orElseThrow().value());
        Tools.Result before = PatchFixtures.qemu(in);
        Tools.Result after = PatchFixtures.qemu(out);
        assertEquals(before.exitCode(), after.exitCode(), after.stderr());
        assertEquals("A" + before.stdout(), after.stdout());
        Path stripped = tmp.resolve("loops.data.stripped");
        Tools.run(List.of("riscv64-linux-gnu-strip", out.toString(), "-o", stripped.toString()), "", 120).checked("strip");
        assertTrue(stripped.toFile().setExecutable(true));
        assertEquals("A" + before.stdout(), PatchFixtures.qemu(stripped).stdout());
    }

    /** The rules QEMU, Linux and glibc rely on for the table and the PT_LOADs. */
    static void assertLoadable(ElfFile o, String name) {
        List<Segment> loads = o.segments().stream().filter(Segment::isLoad).toList();
        long base = Long.MAX_VALUE;
        for (int i = 0; i < loads.size(); i++) {
            Segment s = loads.get(i);
            base = Math.min(base, s.virtualAddress() - s.offset());
            assertEquals(0, Math.floorMod(s.virtualAddress() - s.offset(), s.alignment()), name + ": " + s);
            if (i > 0) {
                assertTrue(Long.compareUnsigned(loads.get(i - 1).virtualAddress(), s.virtualAddress()) < 0,
                        name + ": PT_LOADs out of address order");
            }
        }
        long phoff = o.header().phoff();
        long tableEnd = phoff + (long) o.segments().size() * Segment.HEADER_SIZE;
        // QEMU: AT_PHDR = smallest p_vaddr - p_offset + e_phoff; Linux: through the PT_LOAD holding e_phoff.
        long qemuPhdr = base + phoff;
        Segment holder = loads.stream().filter(s -> s.offset() <= phoff && tableEnd <= s.offset() + s.fileSize())
                .findFirst().orElseThrow(() -> new AssertionError(name + ": no PT_LOAD maps the program header table"));
        assertEquals(qemuPhdr, holder.virtualAddress() + (phoff - holder.offset()), name + ": AT_PHDR");
        for (Segment s : o.segments()) {
            if (s.type() == Segment.PT_PHDR) {
                assertEquals(phoff, s.offset());
                assertEquals(qemuPhdr, s.virtualAddress());
                assertEquals(tableEnd - phoff, s.fileSize());
            }
        }
    }

    static void assertReadelfQuiet(Path binary) {
        for (String tool : List.of("readelf", "llvm-readelf-22")) {
            Tools.Result r = Tools.run(List.of(tool, "-lW", binary.toString()), "", 120);
            assertTrue(r.exitCode() == 0 && r.stderr().isBlank() && !r.stdout().toLowerCase().contains("warning"),
                    tool + " -lW " + binary + ": " + r.stderr());
        }
    }

    private static boolean sameExceptIndex(Segment a, Segment b) {
        return a.type() == b.type() && a.flags() == b.flags() && a.offset() == b.offset()
                && a.virtualAddress() == b.virtualAddress() && a.physicalAddress() == b.physicalAddress()
                && a.fileSize() == b.fileSize() && a.memorySize() == b.memorySize() && a.alignment() == b.alignment();
    }

    private static boolean covered(ElfFile o, Section s, int flags) {
        return o.segments().stream().anyMatch(g -> g.isLoad() && g.flags() == flags && g.virtualAddress() <= s.address()
                && s.address() + s.size() <= g.virtualAddress() + g.memorySize()
                && (s.isNobits() || s.offset() - g.offset() == s.address() - g.virtualAddress()));
    }
}
