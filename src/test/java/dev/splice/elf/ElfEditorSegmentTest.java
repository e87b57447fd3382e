package dev.splice.elf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.Le;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the write-back will do with the editor: new code in a new PT_LOAD segment (made from the
 * PT_GNU_STACK entry, so the program header table keeps its place), a new entry point, a new
 * symbol and a new build-id. The rewritten program must still run under qemu-riscv64 and be read
 * by readelf and objdump without complaint.
 */
class ElfEditorSegmentTest {
    @TempDir Path tmp;

    /** auipc t0, hi(target - pc); jalr x0, lo(target - pc)(t0): a jump from pc to target. */
    private static byte[] jump(long pc, long target) {
        long offset = target - pc;
        long hi = (offset + 0x800) >> 12;
        long lo = offset - (hi << 12);
        int auipc = (int) ((hi & 0xfffff) << 12) | (5 << 7) | 0x17;
        int jalr = (int) ((lo & 0xfff) << 20) | (5 << 15) | 0x67;
        byte[] out = new byte[8];
        Le.putU32(out, 0, auipc);
        Le.putU32(out, 4, jalr);
        return out;
    }

    @Test
    void newExecutableSegmentWithNewEntryRunsTheSameProgram() throws Exception {
        Path file = TestPrograms.rv64("loops");
        ElfFile elf = ElfFile.read(file);
        ElfEditor editor = elf.edit();
        long address = editor.addressForNewSegments(0);
        byte[] code = jump(address, elf.header().entry());

        int text = editor.addSection(".splice.text", Section.SHT_PROGBITS, Section.SHF_ALLOC | Section.SHF_EXECINSTR,
                address, 4, 0, 0, 0, code);
        Segment stack = elf.segments().stream().filter(s -> s.type() == Segment.PT_GNU_STACK).findFirst().orElseThrow();
        editor.setSegment(new Segment(stack.index(), Segment.PT_LOAD, Segment.PF_R | Segment.PF_X, 0, 0, 0, 0, 0,
                ElfEditor.PAGE_SIZE));
        editor.bindSegment(stack.index(), text);
        editor.setEntry(address);
        int symtab = elf.section(".symtab").orElseThrow().index();
        int symbol = editor.addSymbol(symtab, new Symbol(0, "splice_entry_trampoline", address, code.length,
                Symbol.STT_FUNC, Symbol.STB_GLOBAL, Symbol.STV_DEFAULT, text));
        byte[] id = elf.buildId().orElseThrow();
        id[0] ^= 0x5a;
        editor.setBuildId(id);
        Path out = tmp.resolve("loops.trampoline");
        editor.write(out);
        assertTrue(out.toFile().setExecutable(true));

        ElfFile edited = ElfFile.read(out);
        assertEquals(address, edited.header().entry());
        Segment load = edited.segments().get(stack.index());
        assertEquals(Segment.PT_LOAD, load.type());
        assertEquals(address, load.virtualAddress());
        assertEquals(code.length, load.fileSize());
        assertEquals(0, (load.offset() - load.virtualAddress()) % ElfEditor.PAGE_SIZE);
        assertArrayEquals(code, edited.contents(edited.section(".splice.text").orElseThrow()));
        assertEquals("splice_entry_trampoline", edited.symbols().get(symbol).name());
        assertEquals("splice_entry_trampoline", edited.functionContaining(address + 4).orElseThrow().name());
        assertArrayEquals(id, edited.buildId().orElseThrow());
        assertEquals(elf.symbols(), edited.symbols().subList(0, elf.symbols().size()));

        Tools.Result before = Tools.run("qemu-riscv64", file.toString());
        Tools.Result after = Tools.run("qemu-riscv64", out.toString());
        assertEquals(before.exitCode(), after.exitCode(), after.stderr());
        assertEquals(before.stdout(), after.stdout());
        assertFalse(before.stdout().isEmpty());

        Tools.Result gnu = Tools.run("readelf", "-a", "-W", out.toString()).checked("readelf -a");
        assertTrue(gnu.stderr().isBlank(), gnu.stderr());
        assertTrue(gnu.stdout().contains(HexFormat.of().formatHex(id)), "readelf shows the new build-id");
        assertTrue(gnu.stdout().contains("splice_entry_trampoline"));
        Tools.Result llvm = Tools.run(Readelf.TOOL, "-a", out.toString()).checked("llvm-readelf -a");
        assertTrue(llvm.stderr().isBlank(), llvm.stderr());
        Tools.Result objdump = Tools.run("riscv64-linux-gnu-objdump", "-d", "-j", ".splice.text", out.toString())
                .checked("objdump");
        assertTrue(objdump.stderr().isBlank(), objdump.stderr());
        assertTrue(objdump.stdout().contains("<splice_entry_trampoline>:") && objdump.stdout().contains("auipc"),
                objdump.stdout());
    }

    /** A new PT_LOAD grows the program header table: it moves, gets its own PT_LOAD, and static glibc still finds PT_TLS. */
    @Test
    void movedProgramHeaderTableIsMappedAndTheProgramStillRuns() throws Exception {
        Path file = TestPrograms.rv64("exceptions");
        ElfFile elf = ElfFile.read(file);
        ElfEditor editor = elf.edit();
        long address = editor.addressForNewSegments(0);
        byte[] code = jump(address, elf.header().entry());
        int text = editor.addSection(".splice.text", Section.SHT_PROGBITS, Section.SHF_ALLOC | Section.SHF_EXECINSTR,
                address, 4, 0, 0, 0, code);
        editor.addLoadSegment(Segment.PF_R | Segment.PF_X, text);
        editor.setEntry(address);
        Path out = tmp.resolve("exceptions.moved");
        editor.write(out);
        assertTrue(out.toFile().setExecutable(true));

        ElfFile edited = ElfFile.read(out);
        assertEquals(elf.segments().size() + 2, edited.segments().size());
        assertEquals(elf.segments(), edited.segments().subList(0, elf.segments().size()));
        assertEquals(editor.layout().segments(), edited.segments());
        Segment mapped = edited.segments().stream().filter(s -> s.virtualAddress() == address).findFirst().orElseThrow();
        assertEquals(Segment.PT_LOAD, mapped.type());
        assertEquals(mapped.offset(), edited.section(".splice.text").orElseThrow().offset());
        Segment table = edited.segments().stream().filter(s -> s.isLoad() && s.offset() == edited.header().phoff())
                .findFirst().orElseThrow();
        long previous = Long.MIN_VALUE;
        for (Segment s : edited.segments()) {
            if (s.isLoad()) {
                assertTrue(s.virtualAddress() > previous, "PT_LOAD entries in ascending address order");
                previous = s.virtualAddress();
            }
        }
        assertEquals(edited.header().phoff(), table.offset());
        assertEquals((long) edited.segments().size() * Segment.HEADER_SIZE, table.fileSize());
        assertEquals(editor.loadBase(), table.virtualAddress() - table.offset());

        Tools.Result before = Tools.run("qemu-riscv64", file.toString());
        Tools.Result after = Tools.run("qemu-riscv64", out.toString());
        assertEquals(before.exitCode(), after.exitCode(), after.stderr());
        assertEquals(before.stdout(), after.stdout());
        Tools.Result gnu = Tools.run("readelf", "-a", "-W", out.toString()).checked("readelf -a");
        assertTrue(gnu.stderr().isBlank(), gnu.stderr());
        Tools.Result llvm = Tools.run(Readelf.TOOL, "-a", out.toString()).checked("llvm-readelf -a");
        assertTrue(llvm.stderr().isBlank(), llvm.stderr());
    }

    /** The same on a dynamically linked x86-64 PIE: the dynamic loader finds PT_PHDR and the program runs natively. */
    @Test
    void movedProgramHeaderTableWorksForADynamicPie() throws Exception {
        ElfFile elf = ElfFile.read(Path.of("/bin/ls"));
        ElfEditor editor = elf.edit();
        long address = editor.addressForNewSegments(0);
        int text = editor.addSection(".splice.text", Section.SHT_PROGBITS, Section.SHF_ALLOC | Section.SHF_EXECINSTR,
                address, 16, 0, 0, 0, new byte[] {(byte) 0xc3});
        editor.addLoadSegment(Segment.PF_R | Segment.PF_X, text);
        Path out = tmp.resolve("ls.moved");
        editor.write(out);
        assertTrue(out.toFile().setExecutable(true));
        ElfFile edited = ElfFile.read(out);
        Segment phdr = edited.segments().stream().filter(s -> s.type() == Segment.PT_PHDR).findFirst().orElseThrow();
        assertEquals(edited.header().phoff(), phdr.offset());
        assertEquals((long) edited.segments().size() * Segment.HEADER_SIZE, phdr.fileSize());
        Tools.Result before = Tools.run("env", "/bin/ls", "--version");
        Tools.Result after = Tools.run("env", out.toString(), "--version");
        assertEquals(0, after.exitCode(), after.stderr());
        assertEquals(before.stdout(), after.stdout());
        Tools.Result gnu = Tools.run("readelf", "-a", "-W", out.toString()).checked("readelf -a");
        assertTrue(gnu.stderr().isBlank(), gnu.stderr());
    }

    /**
     * A dynamically linked RISC-V PIE (ET_DYN, load base 0) with a new R X segment and a zeroed R W
     * one: the new entry stores to the data area (faults if it is not writable) and jumps to the old
     * entry; ld.so finds the moved table through PT_PHDR and the program runs as before.
     */
    @Test
    void newCodeAndZeroedDataSegmentsWorkForARiscVPie() throws Exception {
        Path file = TestPrograms.rv64Pie("loops");
        ElfFile elf = ElfFile.read(file);
        assertEquals(ElfHeader.ET_DYN, elf.header().type());
        ElfEditor editor = elf.edit();
        long data = editor.addressForNewSegments(0x10000);
        int bss = editor.addSection(".splice.bss", Section.SHT_NOBITS, Section.SHF_ALLOC | Section.SHF_WRITE, data, 64, 0,
                0, 0, new byte[4096]);
        editor.addLoadSegment(Segment.PF_R | Segment.PF_W, bss);
        long address = editor.addressForNewSegments(0x10000);
        assertTrue(address >= data + 4096, "new segments stack up");
        byte[] code = new byte[20];
        long hi = (data - address + 0x800) >> 12;
        long lo = data - address - (hi << 12);
        Le.putU32(code, 0, (int) ((hi & 0xfffff) << 12) | (6 << 7) | 0x17); // auipc t1, hi
        Le.putU32(code, 4, (int) ((lo & 0xfff) << 20) | (6 << 15) | (6 << 7) | 0x13); // addi t1, t1, lo
        Le.putU32(code, 8, (6 << 20) | (6 << 15) | (3 << 12) | 0x23); // sd t1, 0(t1)
        System.arraycopy(jump(address + 12, elf.header().entry()), 0, code, 12, 8);
        int text = editor.addSection(".splice.text", Section.SHT_PROGBITS, Section.SHF_ALLOC | Section.SHF_EXECINSTR,
                address, 4, 0, 0, 0, code);
        editor.addLoadSegment(Segment.PF_R | Segment.PF_X, text);
        editor.setEntry(address);
        Path out = tmp.resolve("loops.pie.segments");
        editor.write(out);
        assertTrue(out.toFile().setExecutable(true));

        ElfFile edited = ElfFile.read(out);
        assertEquals(elf.segments().size() + 3, edited.segments().size());
        Section placed = edited.section(".splice.bss").orElseThrow();
        Segment rw = edited.segments().stream().filter(s -> s.isLoad() && s.virtualAddress() == data).findFirst()
                .orElseThrow();
        assertEquals(Segment.PF_R | Segment.PF_W, rw.flags());
        assertEquals(0, rw.fileSize());
        assertEquals(4096, rw.memorySize());
        assertEquals(0, Math.floorMod(rw.virtualAddress() - rw.offset(), ElfEditor.PAGE_SIZE));
        assertTrue(rw.offset() <= out.toFile().length());
        assertEquals(placed.offset(), rw.offset());
        Segment phdr = edited.segments().stream().filter(s -> s.type() == Segment.PT_PHDR).findFirst().orElseThrow();
        assertEquals(edited.header().phoff(), phdr.offset());
        assertEquals(edited.header().phoff(), phdr.virtualAddress()); // load base 0

        String sysroot = "/usr/riscv64-linux-gnu";
        Tools.Result before = Tools.run("qemu-riscv64", "-L", sysroot, file.toString());
        Tools.Result after = Tools.run("qemu-riscv64", "-L", sysroot, out.toString());
        assertEquals(before.exitCode(), after.exitCode(), after.stderr());
        assertEquals(before.stdout(), after.stdout());
        for (String tool : new String[] {"readelf", Readelf.TOOL}) {
            Tools.Result r = Tools.run(tool, "-lW", out.toString()).checked(tool + " -lW");
            assertTrue(r.stderr().isBlank(), r.stderr());
        }
    }

    @Test
    void aSegmentBelowTheLoadBaseIsRefused() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops"));
        ElfEditor editor = elf.edit();
        long end = 0;
        for (Segment s : elf.segments()) {
            end = Math.max(end, s.virtualAddress() + s.memorySize());
        }
        long low = (end + 0x1000) & -0x1000L; // above all memory, but below load base + file offset
        int text = editor.addSection(".splice.text", Section.SHT_PROGBITS, Section.SHF_ALLOC | Section.SHF_EXECINSTR,
                low, 4, 0, 0, 0, new byte[8]);
        editor.addLoadSegment(Segment.PF_R | Segment.PF_X, text);
        IllegalStateException e = assertThrows(IllegalStateException.class, editor::toBytes);
        assertTrue(e.getMessage().contains("load base"), e.getMessage());
    }

    @Test
    void misuseIsRefusedWithAReason() {
        ElfEditor editor = ElfFile.read(TestPrograms.rv64("loops")).edit();
        int symtab = editor.section(".symtab").orElseThrow().index();
        IllegalArgumentException local = assertThrows(IllegalArgumentException.class, () -> editor.addSymbol(symtab,
                new Symbol(0, "x", 0, 0, Symbol.STT_FUNC, Symbol.STB_LOCAL, 0, 1)));
        assertTrue(local.getMessage().contains("local"));
        assertThrows(IllegalArgumentException.class, () -> editor.setBuildId(new byte[3]));
        int comment = editor.section(".comment").orElseThrow().index();
        assertThrows(IllegalArgumentException.class, () -> editor.bindSegment(0, comment));
        assertThrows(IllegalArgumentException.class, () -> editor.addSymbol(comment,
                new Symbol(0, "x", 0, 0, Symbol.STT_FUNC, Symbol.STB_GLOBAL, 0, 1)));
    }
}
