package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Splice's decoder and exact printer against llvm-objdump-22 / llvm-mc-22 (-M no-aliases, the
 * same extensions): every 16-bit parcel and a deterministic sample of 2,000,000+ 32-bit words
 * over every major opcode. Same validity, same mnemonic, and the printed text reassembles (by
 * llvm-mc) to the same bytes. Known, deliberate differences are listed in {@link #EXCEPTIONS}.
 */
class LlvmDecodeTest {
    /** A deliberate difference from LLVM, explained in docs/isa.md. */
    record Difference(String name, String why, IntPredicate applies) {}

    static final List<Difference> EXCEPTIONS = List.of();

    static final int SAMPLE = 2_016_000;
    /** Prints pc-relative targets as the plain offset, which llvm-mc reads as an offset. */
    static final TargetNamer OFFSET = (out, pc, target) -> out.append(target - pc);

    static Decoder decoder;
    static Path dir;

    @BeforeAll
    static void setUp() {
        decoder = Isa.rv64().decoder(LlvmPeer.extensions()); // the extensions of LlvmPeer.MATTR
        dir = LlvmPeer.tempDir();
    }

    @AfterAll
    static void tearDown() {
        LlvmPeer.deleteTree(dir);
    }

    @Test
    void every16BitParcelMatchesLlvm() throws IOException {
        int[] words = new int[49152];
        int n = 0;
        for (int w = 0; w < 1 << 16; w++) {
            if ((w & 3) != 3) {
                words[n++] = w;
            }
        }
        compare(words, 2);
    }

    @Test
    void sampleOf32BitWordsMatchesLlvm() throws IOException {
        int[] words = sample32(SAMPLE);
        int[] perMajor = new int[32];
        for (int w : words) {
            perMajor[(w >>> 2) & 31]++;
        }
        for (int major = 0; major < 32; major++) {
            if ((major & 7) != 7) {
                assertTrue(perMajor[major] > 50_000, "major opcode " + major + " is sampled");
            }
        }
        compare(words, 4);
    }

    /**
     * Instruction lengths of every parcel with low bits 11, as llvm-objdump steps over them. LLVM
     * steps a single byte over the reserved 192-bit-and-longer prefix (xxxx111xx1111111), which
     * loses its step, so those 64 parcels come last and only the first of them is compared.
     */
    @Test
    void lengthsMatchLlvm() throws IOException {
        List<Integer> parcels = new ArrayList<>();
        for (int w = 3; w < 1 << 16; w += 4) {
            if ((w & 0x707f) != 0x707f) {
                parcels.add(w);
            }
        }
        parcels.add(0x707f);
        ByteBuffer buf = ByteBuffer.allocate(parcels.size() * 32).order(ByteOrder.LITTLE_ENDIAN);
        for (int w : parcels) {
            buf.putShort((short) w);
            for (int k = 0; k < 15; k++) {
                buf.putShort((short) 0x0001); // c.nop: resynchronizes after any length up to 32 bytes
            }
        }
        List<LlvmPeer.Line> lines = LlvmPeer.objdump(buf.array(), dir);
        Map<Long, Long> next = new TreeMap<>();
        for (int i = 0; i + 1 < lines.size(); i++) {
            next.put(lines.get(i).offset(), lines.get(i + 1).offset());
        }
        for (int i = 0; i < parcels.size(); i++) {
            int w = parcels.get(i);
            long at = i * 32L;
            int len = Decoder.length(w);
            Long after = next.get(at);
            if (after == null) {
                fail("llvm-objdump lost step at parcel 0x" + Integer.toHexString(w));
            }
            // Splice stops at 64 bits (-1: the caller emits the parcel raw); LLVM knows the
            // 80..176-bit lengths (bits 14..12 = n: 10 + 2n bytes).
            int n = (w >>> 12) & 7;
            int want = len > 0 ? len : n != 7 ? 10 + 2 * n : 1;
            assertEquals(want, after - at, "length of parcel 0x" + Integer.toHexString(w));
        }
    }

    /** A deterministic sample: per major opcode, random words and table rows with random fields. */
    static int[] sample32(int count) {
        SplittableRandom rnd = new SplittableRandom(0x5911CE);
        List<List<Opcode>> rows = new ArrayList<>();
        for (int i = 0; i < 32; i++) {
            rows.add(new ArrayList<>());
        }
        for (Opcode op : Isa.rv64().opcodes()) {
            if (op.size() == 4) {
                rows.get((op.match() >>> 2) & 31).add(op);
            }
        }
        int[] majors = new int[28];
        int m = 0;
        for (int major = 0; major < 32; major++) {
            if ((major & 7) != 7) {
                majors[m++] = major;
            }
        }
        int[] out = new int[count];
        for (int i = 0; i < count; i++) {
            int major = majors[i % majors.length];
            List<Opcode> candidates = rows.get(major);
            int w;
            int kind = rnd.nextInt(4);
            if (candidates.isEmpty() || kind == 0) {
                w = rnd.nextInt();
            } else {
                Opcode op = candidates.get(rnd.nextInt(candidates.size()));
                w = op.match() | (rnd.nextInt() & ~op.mask());
                if (kind == 3) {
                    w ^= 1 << (7 + rnd.nextInt(25)); // near misses: one fixed or field bit flipped
                }
            }
            out[i] = (w & ~0x7f) | (major << 2) | 3;
        }
        return out;
    }

    private static void compare(int[] words, int size) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(words.length * size).order(ByteOrder.LITTLE_ENDIAN);
        for (int w : words) {
            if (size == 2) {
                buf.putShort((short) w);
            } else {
                buf.putInt(w);
            }
        }
        List<LlvmPeer.Line> lines = LlvmPeer.objdump(buf.array(), dir);
        assertEquals(words.length, lines.size(), "llvm-objdump printed one line per instruction");
        Map<String, Integer> mismatches = new TreeMap<>();
        List<String> examples = new ArrayList<>();
        Map<String, Integer> excused = new TreeMap<>();
        List<String> text = new ArrayList<>();
        ByteBuffer expected = ByteBuffer.allocate(words.length * size).order(ByteOrder.LITTLE_ENDIAN);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < words.length; i++) {
            int w = words[i];
            LlvmPeer.Line line = lines.get(i);
            assertEquals((long) i * size, line.offset(), "llvm-objdump stayed in step");
            Opcode op = decoder.decode(w, size);
            String ours = op == null ? null : op.mnemonic();
            if (ours == null ? line.mnemonic() != null : !ours.equals(line.mnemonic())) {
                Difference d = excuse(w);
                if (d != null) {
                    excused.merge(d.name(), 1, Integer::sum);
                } else {
                    String key = ours + " vs llvm " + line.mnemonic();
                    if (mismatches.merge(key, 1, Integer::sum) <= 3) {
                        examples.add(String.format("0x%0" + (2 * size) + "x: splice %s, llvm '%s'", w, ours, line.text()));
                    }
                }
            }
            // Vector words are reassembled by VectorLlvmTest, which knows the overlap rules llvm-mc
            // enforces on encodings llvm-objdump decodes.
            if (op != null && !VectorLlvmTest.isVector(op)) {
                sb.setLength(0);
                Printer.EXACT.print(op, w, 0, sb, OFFSET);
                text.add(sb.toString());
                if (size == 2) {
                    expected.putShort((short) w);
                } else {
                    expected.putInt(w);
                }
            }
        }
        if (!mismatches.isEmpty()) {
            fail(mismatches.size() + " kinds of decode differences from llvm-objdump: " + mismatches
                    + "\nexamples:\n" + String.join("\n", examples));
        }
        System.out.printf("compared %d %d-bit words with llvm-objdump; %d valid; excused: %s%n",
                words.length, size * 8, text.size(), excused);
        byte[] ours = new byte[expected.position()];
        expected.flip().get(ours);
        byte[] theirs = LlvmPeer.assemble(text, size == 2 ? LlvmPeer.MATTR : LlvmPeer.MATTR_NO_C, dir);
        int step = size;
        for (int i = 0, k = 0; i < ours.length; i += step, k++) {
            if (i + step > theirs.length || !java.util.Arrays.equals(ours, i, i + step, theirs, i, i + step)) {
                fail("llvm-mc assembled '" + text.get(k) + "' differently at instruction " + k
                        + " (lengths " + ours.length + " vs " + theirs.length + ")");
            }
        }
        assertEquals(ours.length, theirs.length);
    }

    private static Difference excuse(int w) {
        for (Difference d : EXCEPTIONS) {
            if (d.applies().test(w)) {
                return d;
            }
        }
        return null;
    }
}
