package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each Zv* extension, and each shorthand of the vector crypto specification, enabled alone on top
 * of V, as {@code --target rv64gcv_zvknhb} enables it: Splice decodes with {@link Extension#classic()},
 * V and that name, llvm-objdump-22 with {@code +v,+name}. {@code VectorLlvmTest} compares all vector
 * extensions at once, which could not show that Zvknhb alone decoded none of the {@code vsha2*}
 * instructions it shares with Zvknha, nor that Splice refused {@code zvkb} and the shorthands
 * ({@code zvkn}, {@code zvkng}, ...) that clang-22 takes in {@code -march} (found in session 8).
 * 20,000 words over the rows of every Zv* extension for each name (random operand bits, near misses,
 * random words in the major opcodes): the same validity and mnemonic, so a name enables exactly
 * what llvm's enables.
 */
class VectorExtensionsAloneTest {
    static final List<String> EXTENSIONS =
            List.of("zvbb", "zvbc", "zvkb", "zvkg", "zvkned", "zvknha", "zvknhb", "zvksed", "zvksh");
    static final List<String> SHORTHANDS = List.of("zvkn", "zvknc", "zvkng", "zvks", "zvksc", "zvksg");
    static Path dir;

    @BeforeAll
    static void setUp() {
        dir = LlvmPeer.tempDir();
    }

    @AfterAll
    static void tearDown() {
        LlvmPeer.deleteTree(dir);
    }

    @Test
    void eachVectorExtensionAloneDecodesWhatLlvmDecodes() throws IOException {
        List<Opcode> rows = new ArrayList<>();
        for (String extension : EXTENSIONS) {
            assertTrue(!ExtensionsPeerTest.rows(extension).isEmpty(), extension + " has rows");
            ExtensionsPeerTest.rows(extension).stream().filter(op -> !rows.contains(op)).forEach(rows::add);
        }
        List<String> names = new ArrayList<>(EXTENSIONS);
        names.addAll(SHORTHANDS);
        for (String extension : names) {
            int[] words = ExtensionsPeerTest.sample(rows, 20_000, extension.hashCode());
            Set<Extension> enabled = EnumSet.copyOf(Extension.classic());
            enabled.addAll(Extension.parseTarget("rv64iv_" + extension));
            Decoder decoder = Isa.rv64().decoder(enabled);
            ByteBuffer buf = ByteBuffer.allocate(4 * words.length).order(ByteOrder.LITTLE_ENDIAN);
            for (int w : words) {
                buf.putInt(w);
            }
            List<LlvmPeer.Line> lines = LlvmPeer.objdump(buf.array(), dir, true,
                    LlvmPeer.CLASSIC_MATTR + ",+v,+" + extension);
            assertEquals(words.length, lines.size(), extension + ": one line per word");
            List<String> wrong = new ArrayList<>();
            int decoded = 0;
            for (int i = 0; i < words.length; i++) {
                Opcode op = decoder.decode(words[i], 4);
                String ours = op == null ? null : op.mnemonic();
                String theirs = lines.get(i).mnemonic();
                decoded += ours == null ? 0 : 1;
                if (ours == null ? theirs != null : !ours.equals(theirs)) {
                    wrong.add(String.format("0x%08x: splice %s, llvm %s", words[i], ours, theirs));
                }
            }
            assertEquals(List.of(), wrong.subList(0, Math.min(5, wrong.size())), extension + ": " + wrong.size()
                    + " of " + words.length + " words differ");
            assertTrue(decoded > 500, extension + ": " + decoded + " words decoded");
        }
    }
}
