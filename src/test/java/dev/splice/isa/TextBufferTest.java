package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** TextBuffer's number formatting against the JDK's (StringBuilder, Long.toHexString). */
class TextBufferTest {
    @Test
    void decimalAndHexAsTheJdkPrintsThem() {
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 300_000; i++) {
            long v = switch (i % 4) {
                case 0 -> i - 150_000; // every small value, both signs
                case 1 -> random.nextLong();
                case 2 -> random.nextLong() >> random.nextInt(64);
                default -> i == 3 ? Long.MIN_VALUE : i == 7 ? Long.MAX_VALUE : random.nextInt(-70_000, 70_000);
            };
            TextBuffer text = new TextBuffer(4);
            text.appendDecimal(v).append((byte) ' ').appendHex(v).append((byte) ' ').appendHex(v, 5);
            String hex = Long.toHexString(v);
            String low5 = Long.toHexString((v & 0xfffffL) | 0x100000L).substring(1);
            assertEquals(v + " " + hex + " " + low5, text.toString(), "value " + v);
        }
    }

    @Test
    void nonAsciiBecomesQuestionMarks() {
        TextBuffer text = new TextBuffer(4);
        text.append("a\u00e9b\u4e2d\ud83d\ude00c");
        assertEquals("a?b??c", text.toString());
        assertEquals("a?b??c", new String(TextBuffer.ascii("a\u00e9b\u4e2d\ud83d\ude00c"), java.nio.charset.StandardCharsets.US_ASCII));
    }
}
