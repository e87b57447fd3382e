package dev.splice.elf.unwind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The one {@code .eh_frame} parser ({@link EhFrame}, {@link CfaReader}) and the
 * {@code .eh_frame_hdr} reader against the peers: every record of the RISC-V {@code .relocs}
 * programs and of the static x86-64 C++ program as llvm-dwarfdump-22 --eh-frame lists it (offset,
 * length, CIE version, augmentation, alignment factors, return-address column, personality; FDE
 * CIE, pc range, LSDA; every CFA instruction by name, and the location each advance reaches),
 * the FDE ranges and CIE augmentations GNU readelf --debug-dump=frames prints, and the search
 * tables llvm-readelf-22 --unwind prints.
 */
class EhFrameOracleTest {
    private static final Pattern RECORD = Pattern.compile(
            "^([0-9a-f]{8}) ([0-9a-f]{8}) [0-9a-f]{8} (?:CIE|FDE cie=([0-9a-f]+) pc=([0-9a-f]+)\\.\\.\\.([0-9a-f]+))$");
    private static final Pattern TERMINATOR = Pattern.compile("^([0-9a-f]{8}) ZERO terminator$");
    private static final Pattern FIELD = Pattern.compile("^  ([A-Za-z ]+):\\s+(.*)$");
    private static final Pattern ADVANCE_TO = Pattern.compile(" to 0x([0-9a-f]+)$");

    private static final Map<Integer, String> NAMES = Map.ofEntries(
            Map.entry(Cfa.DW_CFA_ADVANCE_LOC, "DW_CFA_advance_loc"), Map.entry(Cfa.DW_CFA_OFFSET, "DW_CFA_offset"),
            Map.entry(Cfa.DW_CFA_RESTORE, "DW_CFA_restore"), Map.entry(Cfa.DW_CFA_NOP, "DW_CFA_nop"),
            Map.entry(Cfa.DW_CFA_SET_LOC, "DW_CFA_set_loc"), Map.entry(Cfa.DW_CFA_ADVANCE_LOC1, "DW_CFA_advance_loc1"),
            Map.entry(Cfa.DW_CFA_ADVANCE_LOC2, "DW_CFA_advance_loc2"), Map.entry(Cfa.DW_CFA_ADVANCE_LOC4, "DW_CFA_advance_loc4"),
            Map.entry(Cfa.DW_CFA_OFFSET_EXTENDED, "DW_CFA_offset_extended"),
            Map.entry(Cfa.DW_CFA_RESTORE_EXTENDED, "DW_CFA_restore_extended"),
            Map.entry(Cfa.DW_CFA_UNDEFINED, "DW_CFA_undefined"), Map.entry(Cfa.DW_CFA_SAME_VALUE, "DW_CFA_same_value"),
            Map.entry(Cfa.DW_CFA_REGISTER, "DW_CFA_register"), Map.entry(Cfa.DW_CFA_REMEMBER_STATE, "DW_CFA_remember_state"),
            Map.entry(Cfa.DW_CFA_RESTORE_STATE, "DW_CFA_restore_state"), Map.entry(Cfa.DW_CFA_DEF_CFA, "DW_CFA_def_cfa"),
            Map.entry(Cfa.DW_CFA_DEF_CFA_REGISTER, "DW_CFA_def_cfa_register"),
            Map.entry(Cfa.DW_CFA_DEF_CFA_OFFSET, "DW_CFA_def_cfa_offset"),
            Map.entry(Cfa.DW_CFA_DEF_CFA_EXPRESSION, "DW_CFA_def_cfa_expression"),
            Map.entry(Cfa.DW_CFA_EXPRESSION, "DW_CFA_expression"),
            Map.entry(Cfa.DW_CFA_OFFSET_EXTENDED_SF, "DW_CFA_offset_extended_sf"),
            Map.entry(Cfa.DW_CFA_DEF_CFA_SF, "DW_CFA_def_cfa_sf"), Map.entry(Cfa.DW_CFA_DEF_CFA_OFFSET_SF, "DW_CFA_def_cfa_offset_sf"),
            Map.entry(Cfa.DW_CFA_VAL_OFFSET, "DW_CFA_val_offset"), Map.entry(Cfa.DW_CFA_VAL_OFFSET_SF, "DW_CFA_val_offset_sf"),
            Map.entry(Cfa.DW_CFA_VAL_EXPRESSION, "DW_CFA_val_expression"),
            Map.entry(Cfa.DW_CFA_GNU_ARGS_SIZE, "DW_CFA_GNU_args_size"),
            Map.entry(Cfa.DW_CFA_GNU_NEGATIVE_OFFSET_EXTENDED, "DW_CFA_GNU_negative_offset_extended"));

    private static List<Path> programs() {
        List<Path> out = new ArrayList<>();
        for (Path p : TestPrograms.allRv64()) {
            if (p.getFileName().toString().endsWith(".relocs")) {
                out.add(p);
            }
        }
        out.add(TestPrograms.x86_64Static("exceptions"));
        return out;
    }

    /** A record as llvm-dwarfdump lists it: header fields, named fields, CFA instructions (name, rest of the line). */
    private record Listed(int offset, long length, boolean fde, long cie, long pcBegin, long pcEnd, Map<String, String> fields,
                          List<String[]> instructions) {}

    @Test
    void recordsAreThoseLlvmDwarfdumpLists() {
        int fdes = 0;
        int instructions = 0;
        for (Path p : programs()) {
            ElfFile elf = ElfFile.read(p);
            List<Listed> listed = new ArrayList<>();
            int terminator = -1;
            for (String line : Tools.run("llvm-dwarfdump-22", "--eh-frame", p.toString()).checked("llvm-dwarfdump-22")
                    .stdout().split("\n")) {
                Matcher m = RECORD.matcher(line);
                Matcher t = TERMINATOR.matcher(line);
                Matcher f = FIELD.matcher(line);
                if (m.matches()) {
                    boolean fde = m.group(3) != null;
                    listed.add(new Listed(Integer.parseInt(m.group(1), 16), Long.parseLong(m.group(2), 16), fde,
                            fde ? Long.parseLong(m.group(3), 16) : -1, fde ? Long.parseLong(m.group(4), 16) : 0,
                            fde ? Long.parseLong(m.group(5), 16) : 0, new java.util.HashMap<>(), new ArrayList<>()));
                } else if (t.matches()) {
                    terminator = Integer.parseInt(t.group(1), 16);
                } else if (!listed.isEmpty() && line.startsWith("  DW_CFA_")) {
                    int colon = line.indexOf(':');
                    listed.get(listed.size() - 1).instructions().add(new String[] {line.substring(2, colon), line.substring(colon + 1)});
                } else if (!listed.isEmpty() && f.matches()) {
                    listed.get(listed.size() - 1).fields().put(f.group(1), f.group(2));
                }
            }
            String where = p.getFileName().toString();
            EhFrame frame = EhFrame.of(elf).orElse(null);
            if (frame == null) {
                assertEquals(List.of(), listed, where + " has no .eh_frame");
                continue;
            }
            Section section = elf.section(".eh_frame").orElseThrow();
            assertEquals(listed.size(), frame.records().size(), where + ": records");
            if (terminator >= 0) {
                assertEquals(terminator, frame.terminator(), where + ": terminator");
            } else {
                assertEquals(section.size(), frame.terminator(), where + ": records end at the section's end");
            }
            for (int i = 0; i < listed.size(); i++) {
                Listed want = listed.get(i);
                EhFrame.Entry got = frame.records().get(i);
                String at = where + ": record at 0x" + Integer.toHexString(want.offset());
                assertEquals(want.offset(), got.offset(), at);
                assertEquals(want.length(), got.end() - got.offset() - 4, at + ": length");
                assertEquals(want.fde(), got instanceof EhFrame.Fde, at + ": kind");
                if (got instanceof EhFrame.Fde fde) {
                    assertEquals(want.cie(), fde.cie().offset(), at + ": CIE");
                    assertEquals(want.pcBegin(), fde.pcBegin(), at + ": pc_begin");
                    assertEquals(want.pcEnd(), fde.pcBegin() + fde.pcRange(), at + ": pc end");
                    String lsda = want.fields().get("LSDA Address");
                    assertEquals(lsda == null ? -1 : Long.parseUnsignedLong(lsda, 16),
                            fde.lsdaField() < 0 ? -1 : frame.lsda(fde), at + ": LSDA");
                    fdes++;
                } else {
                    EhFrame.Cie cie = (EhFrame.Cie) got;
                    assertEquals(want.fields().get("Version"), Integer.toString(cie.version()), at + ": version");
                    assertEquals(want.fields().get("Augmentation"), "\"" + cie.augmentation() + "\"", at + ": augmentation");
                    assertEquals(want.fields().get("Code alignment factor"), Long.toString(cie.codeAlignment()), at);
                    assertEquals(want.fields().get("Data alignment factor"), Long.toString(cie.dataAlignment()), at);
                    assertEquals(want.fields().get("Return address column"), Long.toString(cie.returnAddressRegister()), at);
                    String personality = want.fields().get("Personality Address");
                    assertEquals(personality == null ? -1 : Long.parseUnsignedLong(personality, 16),
                            cie.personalityField() < 0 ? -1 : frame.pointer(cie, cie.personalityField(), cie.personalityEncoding()),
                            at + ": personality");
                }
                instructions += checkInstructions(frame, got, want.instructions(), at);
            }
        }
        assertTrue(fdes > 1000 && instructions > 10000, fdes + " FDEs, " + instructions + " instructions");
    }

    /** The record's CFA instructions have the listed names, and each advance reaches the listed location. */
    private static int checkInstructions(EhFrame frame, EhFrame.Entry record, List<String[]> listed, String at) {
        EhFrame.Cie cie = record instanceof EhFrame.Fde f ? f.cie() : (EhFrame.Cie) record;
        long location = record instanceof EhFrame.Fde f ? f.pcBegin() : 0;
        CfaReader cfa = frame.cfaReader(record);
        int n = 0;
        while (cfa.next()) {
            assertTrue(n < listed.size(), at + ": more instructions than llvm-dwarfdump lists");
            String[] want = listed.get(n);
            assertEquals(want[0], NAMES.get(cfa.opcode()), at + ": instruction " + n);
            if (cfa.isAdvance()) {
                location += cfa.delta() * cie.codeAlignment();
                Matcher m = ADVANCE_TO.matcher(want[1]);
                assertTrue(m.find(), want[1]);
                assertEquals(Long.parseLong(m.group(1), 16), location, at + ": advance " + n);
            }
            n++;
        }
        assertEquals(listed.size(), n, at + ": instructions");
        return n;
    }

    @Test
    void rangesAndAugmentationsAreThoseReadelfPrints() {
        Pattern fde = Pattern.compile("^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ FDE cie=([0-9a-f]+) pc=([0-9a-f]+)\\.\\.([0-9a-f]+)$",
                Pattern.MULTILINE);
        Pattern cie = Pattern.compile("^([0-9a-f]+) [0-9a-f]+ [0-9a-f]+ CIE\\n  Version:\\s+\\d+\\n  Augmentation:\\s+\"([^\"]*)\"",
                Pattern.MULTILINE);
        for (Path p : programs()) {
            String dump = Tools.run("readelf", "--debug-dump=frames", p.toString()).checked("readelf").stdout();
            List<String> want = new ArrayList<>();
            Matcher m = fde.matcher(dump);
            while (m.find()) {
                want.add(Long.parseLong(m.group(1), 16) + " FDE " + Long.parseLong(m.group(2), 16) + " "
                        + Long.parseUnsignedLong(m.group(3), 16) + ".." + Long.parseUnsignedLong(m.group(4), 16));
            }
            m = cie.matcher(dump);
            while (m.find()) {
                want.add(Long.parseLong(m.group(1), 16) + " CIE " + m.group(2));
            }
            List<String> got = new ArrayList<>();
            for (EhFrame.Entry r : EhFrame.of(ElfFile.read(p)).map(EhFrame::records).orElse(List.of())) {
                got.add(r instanceof EhFrame.Fde f
                        ? f.offset() + " FDE " + f.cie().offset() + " " + f.pcBegin() + ".." + (f.pcBegin() + f.pcRange())
                        : r.offset() + " CIE " + ((EhFrame.Cie) r).augmentation());
            }
            want.sort(null);
            got.sort(null);
            assertEquals(want, got, p.toString());
        }
    }

    @Test
    void searchTablesAreThoseLlvmReadelfPrints() throws Exception {
        Pattern pointer = Pattern.compile("eh_frame_ptr: 0x([0-9a-f]+)");
        Pattern count = Pattern.compile("fde_count: (\\d+)");
        Pattern entry = Pattern.compile("initial_location: 0x([0-9a-f]+)\\s+address: 0x([0-9a-f]+)");
        List<Path> files = new ArrayList<>();
        try (var s = Files.list(TestPrograms.dir().resolve("x86_64"))) {
            s.filter(f -> f.toString().endsWith(".relocs")).sorted().forEach(files::add);
        }
        files.add(TestPrograms.rv64Pie("loops"));
        files.add(TestPrograms.x86_64Pie("loops"));
        int rows = 0;
        for (Path p : files) {
            ElfFile elf = ElfFile.read(p);
            Section hdr = elf.section(".eh_frame_hdr").orElseThrow();
            EhFrameHeader h = EhFrameHeader.parse(elf.contents(hdr), hdr.address(), p + ": .eh_frame_hdr");
            String dump = Tools.run("llvm-readelf-22", "--unwind", p.toString()).checked("llvm-readelf-22").stdout();
            Matcher m = pointer.matcher(dump);
            assertTrue(m.find(), dump);
            assertEquals(Long.parseLong(m.group(1), 16), h.ehFramePointer(), p.toString());
            assertEquals(elf.section(".eh_frame").orElseThrow().address(), h.ehFramePointer(), p.toString());
            m = count.matcher(dump);
            assertTrue(m.find());
            assertEquals(Integer.parseInt(m.group(1)), h.count(), p.toString());
            m = entry.matcher(dump);
            for (int i = 0; i < h.count(); i++) {
                assertTrue(m.find(), p + ": row " + i);
                assertEquals(Long.parseLong(m.group(1), 16), h.initialLocation(i), p + ": row " + i);
                assertEquals(Long.parseLong(m.group(2), 16), h.fdeAddress(i), p + ": row " + i);
            }
            rows += h.count();
        }
        assertTrue(rows > 50, rows + " rows");
    }
}
