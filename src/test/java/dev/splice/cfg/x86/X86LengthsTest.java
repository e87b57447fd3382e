package dev.splice.cfg.x86;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * X86Lengths against llvm-objdump-22: walking every function from its start, the instruction
 * boundaries, the branch kinds and the direct targets must be llvm-objdump's.
 */
class X86LengthsTest {
    private static final Pattern LINE = Pattern.compile("^\\s+([0-9a-f]+):\\s+(\\S.*)$");
    private static final Pattern TARGET = Pattern.compile("^(0x)?([0-9a-f]+)(\\s|$)");

    /** One line of llvm-objdump: the instruction text without its address. */
    private record Listed(String text) {}

    @Test
    void everyFunctionOfEveryX86TestProgramDecodesAsLlvmObjdumpDoes() {
        List<Path> programs;
        try (Stream<Path> files = Files.list(TestPrograms.dir().resolve("x86_64"))) {
            programs = files.filter(Files::isRegularFile).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertTrue(programs.size() >= 5, "x86-64 test programs missing: run 'make programs'");
        int checked = 0;
        List<String> mismatches = new ArrayList<>();
        for (Path p : programs) {
            checked += compare(p, mismatches);
        }
        assertTrue(checked > 20, "only " + checked + " functions");
        assertEquals(List.of(), mismatches.subList(0, Math.min(20, mismatches.size())),
                mismatches.size() + " mismatches in " + checked + " functions");
    }

    /**
     * A static build of a test program: glibc's static code (AVX2/EVEX string functions, x87,
     * SSE4.2, lock elision with xbegin, ...), built here with the same compiler as the Makefile's.
     */
    @Test
    void everyFunctionOfAStaticGlibcProgramDecodesAsLlvmObjdumpDoes(@TempDir Path dir) {
        Path program = dir.resolve("loops.static");
        Tools.run("gcc", "-O2", "-g0", "-static", "-o", program.toString(),
                TestPrograms.root().resolve("tests/programs/loops.c").toString()).checked("gcc -static");
        List<String> mismatches = new ArrayList<>();
        int checked = compare(program, mismatches);
        assertTrue(checked > 1000, "only " + checked + " functions");
        assertEquals(List.of(), mismatches.subList(0, Math.min(20, mismatches.size())),
                mismatches.size() + " mismatches in " + checked + " functions");
    }

    /** Arbitrary bytes: a length within the limit and 15, or null; never an exception. */
    @Test
    void randomBytesDecodeWithinBoundsOrNot() {
        java.util.Random random = new java.util.Random(11);
        byte[] b = new byte[64];
        for (int trial = 0; trial < 200_000; trial++) {
            random.nextBytes(b);
            int at = random.nextInt(8);
            int end = at + random.nextInt(20);
            X86Lengths.Insn insn = X86Lengths.decode(b, at, end);
            if (insn != null) {
                assertTrue(insn.length() >= 1 && insn.length() <= 15 && at + insn.length() <= end,
                        "length " + insn.length() + " at " + at + " end " + end);
            }
        }
    }

    /** Compares every function of {@code program}; returns how many were checked. */
    static int compare(Path program, List<String> mismatches) {
        ElfFile elf = ElfFile.read(program);
        Tools.Result r = Tools.run("llvm-objdump-22", "-d", "--no-show-raw-insn", program.toString());
        assertEquals(0, r.exitCode(), r.stderr());
        TreeMap<Long, Listed> listed = new TreeMap<>();
        for (String line : r.stdout().split("\n")) {
            Matcher m = LINE.matcher(line);
            if (m.matches()) {
                listed.put(Long.parseUnsignedLong(m.group(1), 16), new Listed(m.group(2).trim()));
            }
        }
        int checked = 0;
        for (Function f : elf.functions()) {
            Section s = f.section();
            if (f.size() <= 0 || !s.isExecutable() || s.type() != Section.SHT_PROGBITS) {
                continue;
            }
            byte[] bytes = elf.contents(s);
            int base = (int) (f.address() - s.address());
            int end = (int) Math.min(bytes.length, base + f.size());
            checked++;
            String where = program.getFileName() + " " + f.name();
            Map<Long, Listed> expected = listed.subMap(f.address(), f.address() + f.size());
            int at = base;
            for (Map.Entry<Long, Listed> e : expected.entrySet()) {
                long address = s.address() + at;
                if (e.getKey() != address) {
                    mismatches.add(where + ": decoder at 0x" + Long.toHexString(address) + ", llvm-objdump at 0x"
                            + Long.toHexString(e.getKey()) + " " + e.getValue().text());
                    break;
                }
                X86Lengths.Insn insn = X86Lengths.decode(bytes, at, end);
                String text = e.getValue().text();
                if (insn == null) {
                    mismatches.add(where + ": no decode at 0x" + Long.toHexString(address) + " " + text);
                    break;
                }
                String problem = kindProblem(insn, address, text);
                if (problem != null) {
                    mismatches.add(where + ": 0x" + Long.toHexString(address) + " " + text + ": " + problem);
                    break;
                }
                at += insn.length();
            }
            if (at != end && mismatches.stream().noneMatch(x -> x.startsWith(where + ":"))) {
                mismatches.add(where + ": decoder ends at +" + (at - base) + ", size " + f.size());
            }
        }
        return checked;
    }

    /** Null if the kind (and direct target) agrees with llvm-objdump's text, else what differs. */
    private static String kindProblem(X86Lengths.Insn insn, long address, String text) {
        String[] words = text.split("\\s+");
        int k = 0;
        while (k < words.length - 1 && isPrefix(words[k])) {
            k++;
        }
        String mnemonic = words[k];
        String operand = k + 1 < words.length ? words[k + 1] : "";
        X86Lengths.Kind want;
        if (mnemonic.equals("<unknown>")) {
            return "llvm-objdump cannot decode it";
        } else if (mnemonic.equals("jmp") || mnemonic.equals("jmpq")) {
            want = operand.startsWith("*") ? X86Lengths.Kind.INDIRECT_JUMP : X86Lengths.Kind.JUMP;
        } else if (mnemonic.equals("call") || mnemonic.equals("callq")) {
            want = operand.startsWith("*") ? X86Lengths.Kind.INDIRECT_CALL : X86Lengths.Kind.CALL;
        } else if (mnemonic.equals("ret") || mnemonic.equals("retq")) {
            want = X86Lengths.Kind.RETURN;
        } else if (mnemonic.startsWith("loop") || mnemonic.equals("jrcxz") || mnemonic.equals("jecxz")) {
            want = X86Lengths.Kind.LOOP;
        } else if (mnemonic.startsWith("j") || mnemonic.equals("xbegin")) {
            want = X86Lengths.Kind.CONDITIONAL;
        } else if (mnemonic.equals("ud2") || mnemonic.equals("hlt")) {
            want = X86Lengths.Kind.TRAP;
        } else if (mnemonic.equals("int3")) {
            want = X86Lengths.Kind.BREAKPOINT;
        } else {
            want = X86Lengths.Kind.OTHER;
        }
        if (insn.kind() != want) {
            return "kind " + insn.kind() + ", llvm-objdump's " + want;
        }
        if (want == X86Lengths.Kind.JUMP || want == X86Lengths.Kind.CALL || want == X86Lengths.Kind.CONDITIONAL
                || want == X86Lengths.Kind.LOOP) {
            Matcher m = TARGET.matcher(operand);
            if (!m.find()) {
                return "no target in llvm-objdump's text";
            }
            long target = Long.parseUnsignedLong(m.group(2), 16);
            if (insn.target(address) != target) {
                return "target 0x" + Long.toHexString(insn.target(address));
            }
        }
        return null;
    }

    private static boolean isPrefix(String word) {
        return switch (word) {
            case "rep", "repe", "repz", "repne", "repnz", "lock", "bnd", "notrack", "data16", "data32", "addr32",
                    "cs", "ds", "es", "ss", "fs", "gs", "rex", "rex64", "rex.W", "xacquire", "xrelease" -> true;
            default -> word.startsWith("rex.");
        };
    }
}
