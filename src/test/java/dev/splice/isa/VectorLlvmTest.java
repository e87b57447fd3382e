package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The vector rows (V 1.0 and the Zv* extensions) against llvm-objdump-22 and llvm-mc-22: for each
 * extension 200,000 words over its opcode space (a quarter random words in its major opcodes, the
 * rest its rows with random operand bits, a third of those with one bit flipped), disassembled by
 * one llvm-objdump run with the vector extensions enabled. Same validity, same mnemonic, same
 * operands (numbers compared by value: llvm-objdump prints vector immediates in hex, Splice in
 * decimal as for every other immediate); then Splice's text, assembled by one llvm-mc run, gives
 * the same bytes. llvm-mc refuses a few encodings its own disassembler decodes (register-group
 * overlap rules the assembler checks, see {@link #ASSEMBLER_ONLY_RULES}): those are counted, and
 * any other llvm-mc error fails the test.
 */
class VectorLlvmTest {
    static final String MATTR = LlvmPeer.MATTR;
    static final int PER_EXTENSION = 200_000;
    /** llvm-mc's messages for encodings llvm-objdump decodes but the assembler refuses (docs/isa.md). */
    static final List<String> ASSEMBLER_ONLY_RULES = List.of(
            "the destination vector register group cannot overlap the mask register",
            "the destination vector register group cannot be V0",
            "the destination vector register group cannot overlap the source vector register group");

    /** The extensions with rows of their own, each compared separately. */
    enum Group {
        V(Extension.V), ZVBB(Extension.ZVBB), ZVBC(Extension.ZVBC), ZVKG(Extension.ZVKG),
        ZVKNED(Extension.ZVKNED), ZVKNHA(Extension.ZVKNHA), ZVKSED(Extension.ZVKSED), ZVKSH(Extension.ZVKSH);

        final Extension extension;

        Group(Extension extension) {
            this.extension = extension;
        }
    }

    /** Whether a row is one of the vector extensions'. */
    static boolean isVector(Opcode op) {
        return op.extension() == Extension.V || op.extension().isaName().startsWith("zv");
    }

    static Decoder decoder;
    static Path dir;

    @BeforeAll
    static void setUp() {
        decoder = Isa.rv64().decoder(LlvmPeer.extensions()); // the extensions of MATTR
        dir = LlvmPeer.tempDir();
    }

    @AfterAll
    static void tearDown() {
        LlvmPeer.deleteTree(dir);
    }

    @ParameterizedTest
    @EnumSource(Group.class)
    void wordsOverTheExtensionsOpcodeSpaceMatchLlvm(Group group) throws IOException {
        int[] words = sample(group.extension, PER_EXTENSION, 0x7EC7 + group.ordinal());
        compare(words, group.extension);
    }

    /** Words over an extension's opcode space: random ones in its major opcodes and its rows with random fields. */
    static int[] sample(Extension ext, int count, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        List<Opcode> rows = new ArrayList<>();
        Set<Integer> majors = new java.util.TreeSet<>();
        for (Opcode op : Isa.rv64().opcodes()) {
            if (op.size() == 4 && op.extension() == ext) {
                rows.add(op);
                majors.add(op.match() & 0x7f);
            }
        }
        assertTrue(rows.size() > 0, ext + " has rows");
        int[] major = majors.stream().mapToInt(Integer::intValue).toArray();
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            int kind = rnd.nextInt(4);
            int w;
            if (kind == 0) {
                Opcode op = rows.get(rnd.nextInt(rows.size()));
                // A random word with the row's major opcode and, for loads and stores, a vector width.
                w = (rnd.nextInt() & ~0x7f) | major[rnd.nextInt(major.length)];
                if ((w & 0x7f) != 0x57 && (w & 0x7f) != 0x77) {
                    w = (w & ~0x7000) | (op.match() & 0x7000);
                }
            } else {
                Opcode op = rows.get(rnd.nextInt(rows.size()));
                w = op.match() | (rnd.nextInt() & ~op.mask());
                if (kind == 3) {
                    w ^= 1 << (7 + rnd.nextInt(25));
                }
            }
            out[i] = w;
        }
        return out;
    }

    private static final Pattern HEX = Pattern.compile("(-?)0x([0-9a-f]+)");

    /** Operand text with every hex number written in decimal (llvm-objdump prints vector immediates in hex). */
    static String decimal(String operands) {
        Matcher m = HEX.matcher(operands);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            long v = Long.parseLong(m.group(2), 16);
            m.appendReplacement(sb, (m.group(1).isEmpty() ? "" : "-") + v);
        }
        m.appendTail(sb);
        return sb.toString().replace(" ", "");
    }

    private static void compare(int[] words, Extension ext) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(words.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int w : words) {
            buf.putInt(w);
        }
        List<LlvmPeer.Line> lines = LlvmPeer.objdump(buf.array(), dir, true, MATTR);
        assertEquals(words.length, lines.size(), "llvm-objdump printed one line per instruction");
        Map<String, Integer> mismatches = new TreeMap<>();
        List<String> examples = new ArrayList<>();
        List<String> text = new ArrayList<>();
        List<Integer> valid = new ArrayList<>();
        int ofExtension = 0;
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < words.length; i++) {
            int w = words[i];
            LlvmPeer.Line line = lines.get(i);
            assertEquals((long) i * 4, line.offset(), "llvm-objdump stayed in step");
            Opcode op = decoder.decode(w, 4);
            String ours = op == null ? null : op.mnemonic();
            String key = null;
            if (ours == null ? line.mnemonic() != null : !ours.equals(line.mnemonic())) {
                key = ours + " vs llvm " + line.mnemonic();
            } else if (op != null) {
                sb.setLength(0);
                Printer.EXACT.printOperands(op, w, 0, sb, LlvmDecodeTest.OFFSET);
                String theirs = line.text().substring(line.mnemonic().length()).strip();
                if (!decimal(theirs).equals(decimal(sb.toString()))) {
                    key = ours + " operands";
                }
            }
            if (key != null) {
                if (mismatches.merge(key, 1, Integer::sum) <= 3) {
                    sb.setLength(0);
                    if (op != null) {
                        Printer.EXACT.print(op, w, 0, sb, LlvmDecodeTest.OFFSET);
                    }
                    examples.add(String.format("0x%08x: splice '%s', llvm '%s'", w, sb, line.text()));
                }
            }
            if (op != null) {
                if (op.extension() == ext) {
                    ofExtension++;
                }
                sb.setLength(0);
                Printer.EXACT.print(op, w, 0, sb, LlvmDecodeTest.OFFSET);
                text.add(sb.toString());
                valid.add(w);
            }
        }
        if (!mismatches.isEmpty()) {
            fail(mismatches.size() + " kinds of differences from llvm-objdump: " + mismatches
                    + "\nexamples:\n" + String.join("\n", examples));
        }
        assertTrue(ofExtension > words.length / 2, ext + ": most sampled words are its instructions (" + ofExtension + ")");
        Map<String, Integer> refused = new TreeMap<>();
        List<Integer> accepted = assembleable(text, refused);
        List<String> kept = new ArrayList<>();
        ByteBuffer expected = ByteBuffer.allocate(accepted.size() * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int k : accepted) {
            kept.add(text.get(k));
            expected.putInt(valid.get(k));
        }
        // llvm-mc warns about fractional LMULs that not every implementation supports (SEW > LMUL * ELEN / 8
        // is reserved only for SEW > ELEN * LMUL): the encodings are valid.
        byte[] theirs = LlvmPeer.assemble(kept, LlvmPeer.MATTR_NO_C, dir,
                line -> line.contains("warning: use of vtype encodings with SEW >"));
        byte[] ours = expected.array();
        for (int i = 0; i < ours.length; i += 4) {
            if (i + 4 > theirs.length || !java.util.Arrays.equals(ours, i, i + 4, theirs, i, i + 4)) {
                fail("llvm-mc assembled '" + kept.get(i / 4) + "' differently");
            }
        }
        assertEquals(ours.length, theirs.length);
        System.out.printf("%s: compared %d words with llvm-objdump; %d valid (%d of %s); llvm-mc refused %s%n",
                ext, words.length, text.size(), ofExtension, ext, refused);
    }

    private static final Pattern MC_ERROR = Pattern.compile("^[^:]+:(\\d+):\\d+: error: (.*)$");

    /**
     * The indexes of the lines llvm-mc assembles; the others must be refused for one of the
     * {@link #ASSEMBLER_ONLY_RULES} (counted in {@code refused}).
     */
    private static List<Integer> assembleable(List<String> text, Map<String, Integer> refused) throws IOException {
        Path src = dir.resolve("check.s");
        StringBuilder sb = new StringBuilder(".text\n");
        for (String l : text) {
            sb.append(l).append('\n');
        }
        Files.writeString(src, sb);
        Path err = dir.resolve("check.err");
        Tools.require("llvm-mc-22");
        try {
            Process p = new ProcessBuilder("llvm-mc-22", "-triple=riscv64", "-mattr=" + LlvmPeer.MATTR_NO_C,
                    "-filetype=null", src.toString()).redirectOutput(dir.resolve("check.out").toFile())
                    .redirectError(err.toFile()).start();
            if (!p.waitFor(300, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("llvm-mc did not finish");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted");
        }
        boolean[] bad = new boolean[text.size()];
        for (String l : Files.readAllLines(err)) {
            Matcher m = MC_ERROR.matcher(l);
            if (!m.matches()) {
                continue;
            }
            int index = Integer.parseInt(m.group(1)) - 2;
            String message = m.group(2);
            if (!ASSEMBLER_ONLY_RULES.contains(message)) {
                fail("llvm-mc refused '" + text.get(index) + "': " + message);
            }
            bad[index] = true;
            refused.merge(message, 1, Integer::sum);
        }
        List<Integer> out = new ArrayList<>();
        for (int i = 0; i < bad.length; i++) {
            if (!bad[i]) {
                out.add(i);
            }
        }
        return out;
    }
}
