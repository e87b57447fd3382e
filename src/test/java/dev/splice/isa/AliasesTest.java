package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The readable printer against llvm-objdump-22's default (alias) output: the same mnemonic for
 * every 16-bit parcel and a sample of 32-bit words, except the named differences below.
 */
class AliasesTest {
    /** A deliberate difference in readable output: which (splice, llvm) mnemonic pair, and why. */
    record Difference(String name, String why, BiPredicate<String, String> applies) {}

    static final List<Difference> DIFFERENCES = List.of();

    static Path dir;
    static Decoder decoder;

    @BeforeAll
    static void setUp() {
        dir = LlvmPeer.tempDir();
        decoder = Isa.rv64().decoder(LlvmPeer.extensions()); // the extensions of LlvmPeer.MATTR
    }

    @AfterAll
    static void tearDown() {
        LlvmPeer.deleteTree(dir);
    }

    @Test
    void compressedAliasesMatchLlvm() throws IOException {
        List<Integer> words = new ArrayList<>();
        for (int w = 0; w < 1 << 16; w++) {
            if ((w & 3) != 3) {
                words.add(w);
            }
        }
        compare(words, 2);
    }

    @Test
    void wideAliasesMatchLlvm() throws IOException {
        List<Integer> words = new ArrayList<>();
        for (int w : LlvmDecodeTest.sample32(300_000)) {
            words.add(w);
        }
        compare(words, 4);
    }

    private static void compare(List<Integer> words, int size) throws IOException {
        ByteBuffer buf = ByteBuffer.allocate(words.size() * size).order(ByteOrder.LITTLE_ENDIAN);
        for (int w : words) {
            if (size == 2) {
                buf.putShort((short) (int) w);
            } else {
                buf.putInt(w);
            }
        }
        List<LlvmPeer.Line> lines = LlvmPeer.objdump(buf.array(), dir, false, LlvmPeer.MATTR + ",+zihintntl"); // ntl.*: whatever the target
        assertEquals(words.size(), lines.size());
        Map<String, Integer> mismatches = new TreeMap<>();
        Map<String, String> examples = new TreeMap<>();
        Map<String, Integer> excused = new TreeMap<>();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < words.size(); i++) {
            int w = words.get(i);
            Opcode op = decoder.decode(w, size);
            if (op == null) {
                continue; // validity is LlvmDecodeTest's job
            }
            sb.setLength(0);
            Printer.ALIASES.print(op, w, 0, sb, TargetNamer.ABSOLUTE);
            String text = sb.toString();
            String ours = text.split(" ")[0];
            String theirs = lines.get(i).mnemonic();
            if (!ours.equals(theirs)) {
                Difference d = null;
                for (Difference x : DIFFERENCES) {
                    if (x.applies().test(ours, theirs)) {
                        d = x;
                        break;
                    }
                }
                if (d != null) {
                    excused.merge(d.name(), 1, Integer::sum);
                    continue;
                }
                String key = ours + " / " + theirs;
                mismatches.merge(key, 1, Integer::sum);
                examples.putIfAbsent(key, String.format("0x%x: '%s' vs llvm '%s'", w, text, lines.get(i).text()));
            }
        }
        if (!mismatches.isEmpty()) {
            fail(mismatches.size() + " kinds of readable-form differences: " + mismatches + "\n"
                    + String.join("\n", examples.values()));
        }
        System.out.printf("readable forms of %d %d-bit words match llvm-objdump; excused %s%n",
                words.size(), size * 8, excused);
    }
}
