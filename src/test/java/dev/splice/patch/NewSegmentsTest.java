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
                Segment kept = added.stream().filter(t -> sameExceptIndex(s, t)).findFirst()
                        .orElseThrow(() -> new AssertionError(name + ": lost " + s));
                added.remove(kept);
            }
            // the table's own PT_LOAD, the code's and the data's
            assertEquals(3, added.size(), name + ": " + added);
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
        }
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
