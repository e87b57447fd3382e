package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.unwind.EhFrame;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relocations of an output's frame data describe the output (issue 17): those of .eh_frame
 * and of its continuation {@code .splice.eh_frame}, as llvm-readelf-22 prints them, applied to the
 * output's bytes give the bytes there; the FDEs GNU readelf reads in .eh_frame and every FDE of the
 * continuation have relocations of their pc_begin naming it; and an output whose .eh_frame grew,
 * patched again, throws and catches C++ exceptions as the input does (the second pass follows the
 * first one's continuation).
 */
class EhFrameRelocationsTest {
    private static final String NOP = "addi x0, x0, 0\n";

    @TempDir
    Path dir;

    private static byte[] atEveryBlock(Path binary) {
        return Rewrite.open(binary).at(PointSpec.parse("block:*"), NOP, "nop", BranchTarget.INSERTED).run().bytes();
    }

    @Test
    void frameRelocationsOfOutputsPatchedOnceAndTwiceDescribeTheirBytes() throws IOException {
        Path in = TestPrograms.rv64("exceptions.relocs");
        Path once = PatchFixtures.write(dir, "once", atEveryBlock(in));
        Path twice = PatchFixtures.write(dir, "twice", atEveryBlock(once));
        PatchFixtures.assertSameRun(in, once);
        PatchFixtures.assertSameRun(in, twice);
        for (Path out : List.of(once, twice)) {
            ElfFile elf = ElfFile.read(out);
            List<Reloc> relocs = frameRelocations(out);
            assertAppliedRelocationsGiveTheBytes(elf, relocs);
            Map<Long, List<Reloc>> at = new HashMap<>();
            for (Reloc r : relocs) {
                at.computeIfAbsent(r.offset(), k -> new ArrayList<>()).add(r);
            }
            // .eh_frame as GNU readelf reads it.
            Section eh = elf.section(".eh_frame").orElseThrow();
            int fdes = 0;
            for (long[] fde : readelfFdes(out)) {
                assertNamed(at, eh.address() + fde[0] + 8, fde[1], fde[2], out + ": .eh_frame FDE at +0x" + Long.toHexString(fde[0]));
                fdes++;
            }
            // The continuation: one, the earlier pass's emptied.
            List<Section> continuations = elf.sections().stream()
                    .filter(s -> s.name().equals(EhFrameRewriter.SECTION) && s.size() > 0).toList();
            assertEquals(1, continuations.size(), out + ": one non-empty " + EhFrameRewriter.SECTION);
            Section c = continuations.get(0);
            EhFrame frame = EhFrame.parse(elf.contents(c), c.address(), c.name());
            int continued = 0;
            for (EhFrame.Entry e : frame.records()) {
                if (e instanceof EhFrame.Fde f) {
                    assertNamed(at, c.address() + f.pcBeginField(), f.pcBegin(), f.pcBegin() + f.pcRange(),
                            out + ": " + c.name() + " FDE at +0x" + Integer.toHexString(f.offset()));
                    continued++;
                }
            }
            assertTrue(fdes > 20 && continued > 500, out + ": " + fdes + " FDEs in .eh_frame, " + continued + " continued");
        }
    }

    /** The FDE's pc_begin field has a {@code R_RISCV_32_PCREL} naming its start, and pc_range an ADD/SUB pair of its end and start. */
    private static void assertNamed(Map<Long, List<Reloc>> at, long field, long start, long end, String what) {
        List<Reloc> begin = at.getOrDefault(field, List.of());
        assertTrue(begin.stream().anyMatch(r -> r.type().equals("R_RISCV_32_PCREL") && r.value() == start),
                what + ": pc_begin 0x" + Long.toHexString(start) + " has no relocation naming it: " + begin);
        List<Reloc> range = at.getOrDefault(field + 4, List.of());
        assertTrue(range.stream().anyMatch(r -> r.type().equals("R_RISCV_ADD32") && r.value() == end)
                        && range.stream().anyMatch(r -> r.type().equals("R_RISCV_SUB32") && r.value() == start),
                what + ": pc_range has no ADD32/SUB32 of 0x" + Long.toHexString(end) + " - 0x" + Long.toHexString(start) + ": " + range);
    }

    /** Every 32_PCREL and ADD32/SUB32 pair, applied (S + A - P; S + A of one minus the other), gives the 4 bytes at its place. */
    private static void assertAppliedRelocationsGiveTheBytes(ElfFile elf, List<Reloc> relocs) {
        ByteBuffer file = elf.bytes().duplicate().order(ByteOrder.LITTLE_ENDIAN);
        Map<Long, Long> added = new HashMap<>();
        int checked = 0;
        for (Reloc r : relocs) {
            long offset = elf.fileOffset(r.offset()).orElseThrow();
            int word = file.getInt((int) offset);
            switch (r.type()) {
                case "R_RISCV_32_PCREL" -> {
                    assertEquals((int) (r.value() - r.offset()), word, r + " applied");
                    checked++;
                }
                case "R_RISCV_ADD32" -> added.put(r.offset(), r.value());
                case "R_RISCV_SUB32" -> {
                    Long plus = added.remove(r.offset());
                    assertTrue(plus != null, r + " follows no ADD32");
                    assertEquals((int) (plus - r.value()), word, r + " applied");
                    checked++;
                }
                default -> { }
            }
        }
        assertTrue(checked > 1000, checked + " relocations applied");
    }

    private static final Pattern FDE = Pattern.compile("^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\\.\\.([0-9a-f]+)");

    /** The FDEs of .eh_frame, as GNU readelf reads them: offset, start, end. */
    private static List<long[]> readelfFdes(Path binary) {
        String text = Tools.run(Tools.require("riscv64-linux-gnu-readelf"), "--debug-dump=frames", binary.toString())
                .checked("readelf --debug-dump=frames").stdout();
        List<long[]> out = new ArrayList<>();
        for (String line : text.split("\n")) {
            Matcher m = FDE.matcher(line);
            if (m.find()) {
                out.add(new long[] {Long.parseLong(m.group(1), 16), Long.parseUnsignedLong(m.group(2), 16),
                        Long.parseUnsignedLong(m.group(3), 16)});
            }
        }
        return out;
    }

    /** One relocation of .rela.eh_frame or .rela.splice.eh_frame as llvm-readelf-22 -r prints it: offset, type, symbol value plus addend. */
    private record Reloc(long offset, String type, long value) {}

    private static final Pattern SECTION = Pattern.compile("^Relocation section '([^']+)'");
    private static final Pattern RELOC = Pattern.compile("^([0-9a-f]{16})\\s+[0-9a-f]{16}\\s+(R_RISCV_\\w+)\\s+(.*)$");
    private static final Pattern SYMBOL_PLUS = Pattern.compile("^([0-9a-f]{16})\\s+\\S.*?\\s([+-])\\s([0-9a-f]+)$");

    private static List<Reloc> frameRelocations(Path binary) {
        String text = Tools.run(Tools.require("llvm-readelf-22"), "-r", binary.toString()).checked("llvm-readelf-22 -r").stdout();
        List<Reloc> out = new ArrayList<>();
        boolean frames = false;
        for (String line : text.split("\n")) {
            Matcher s = SECTION.matcher(line);
            if (s.find()) {
                frames = s.group(1).equals(".rela.eh_frame") || s.group(1).equals(OutputRelocations.FRAMES_SECTION);
                continue;
            }
            Matcher m = RELOC.matcher(line.trim());
            if (frames && m.matches() && !m.group(2).equals("R_RISCV_NONE")) {
                Matcher sym = SYMBOL_PLUS.matcher(m.group(3).trim());
                long value;
                if (sym.matches()) {
                    long addend = Long.parseUnsignedLong(sym.group(3), 16);
                    value = Long.parseUnsignedLong(sym.group(1), 16) + (sym.group(2).equals("-") ? -addend : addend);
                } else { // no symbol: the addend alone
                    value = Long.parseUnsignedLong(m.group(3).trim(), 16);
                }
                out.add(new Reloc(Long.parseUnsignedLong(m.group(1), 16), m.group(2), value));
            }
        }
        return out;
    }
}
