package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.splice.elf.ElfFile;
import dev.splice.testing.TestPrograms;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The batch decoder ({@link Decoder#decodeAll}, with its direct tables and two-at-a-time walk)
 * agrees item by item with the one-word decoder ({@link Decoder#decode}, checked against
 * llvm-mc in {@link LlvmDecodeTest}) and the RISC-V length encoding, on real code and on
 * random bytes full of 48/64-bit, reserved and truncated encodings.
 */
class DecodeAllTest {
    private final Decoder decoder = Isa.rv64().decoder(Extension.all());

    @Test
    void realCodeDecodesAsWordByWord() {
        for (String name : new String[] {"exceptions", "loops.norvc"}) {
            ElfFile elf = ElfFile.read(TestPrograms.rv64(name));
            byte[] text = elf.contents(elf.section(".text").orElseThrow());
            int n = check(text, 0, text.length);
            assertEquals(true, n > 10_000, name + ": " + n + " items");
        }
    }

    @Test
    void randomBytesDecodeAsWordByWord() {
        SplittableRandom random = new SplittableRandom(7);
        for (int round = 0; round < 200; round++) {
            byte[] bytes = new byte[random.nextInt(1, 400)];
            for (int i = 0; i < bytes.length; i++) {
                // Low bits 11 and 11111 often, so that long and reserved encodings appear.
                int b = random.nextInt(256);
                bytes[i] = (byte) (random.nextInt(4) == 0 ? b | 0x1f : random.nextInt(4) == 0 ? b | 0x3f : b);
            }
            int from = random.nextInt(Math.min(3, bytes.length));
            check(bytes, from, bytes.length - random.nextInt(Math.min(3, bytes.length - from) + 1));
        }
    }

    /** Compares decodeAll and decodeAt with the word-by-word reference sweep; returns the count. */
    private int check(byte[] code, int from, int to) {
        int[] packed = new int[(to - from) / 2 + 1];
        int n = decoder.decodeAll(code, from, to, packed);
        int pos = from;
        for (int i = 0; i < n; i++) {
            String where = "item " + i + " at offset " + pos;
            assertEquals(decoder.decodeAt(code, pos, to), packed[i], where);
            int left = to - pos;
            int length = left >= 2 ? Decoder.length((code[pos] & 0xff) | (code[pos + 1] & 0xff) << 8) : 0;
            int size;
            Opcode expected = null;
            boolean loose;
            if (left < 2) {
                size = left;
                loose = true;
            } else if (length < 0) {
                size = 2;
                loose = true;
            } else if (length > left) {
                size = left;
                loose = true;
            } else {
                size = length;
                loose = false;
                if (length <= 4) {
                    int bits = 0;
                    for (int k = length - 1; k >= 0; k--) {
                        bits = bits << 8 | (code[pos + k] & 0xff);
                    }
                    expected = decoder.decode(bits, length);
                }
            }
            assertEquals(size, Decoder.size(packed[i]), where);
            assertEquals(loose, Decoder.isLoose(packed[i]), where);
            assertSame(expected, decoder.opcode(packed[i]), where);
            pos += size;
        }
        assertEquals(to, pos, "the items cover the range");
        return n;
    }
}
