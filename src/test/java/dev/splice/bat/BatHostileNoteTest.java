package dev.splice.bat;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.base.ByteWriter;
import org.junit.jupiter.api.Test;

/**
 * Forged BAT descriptors the fuzzer found (issue 15): counts whose product with the minimum entry
 * size overflows 64 bits passed the bounds check and sized a list ("Illegal Capacity", or an
 * OutOfMemoryError for a count whose low 32 bits are 1,227,133,514), and an equal-offset count near
 * 2^63 overflowed the bitmap size. Each is now a located refusal.
 */
class BatHostileNoteTest {
    private static byte[] descriptor(long hotCount, int trailing) {
        ByteWriter w = new ByteWriter();
        w.uleb(hotCount);
        w.bytes(new byte[trailing]);
        return w.toByteArray();
    }

    private static void assertRefused(byte[] descriptor, String fragment) {
        BadInputException e = assertThrows(BadInputException.class, () -> BatTables.decodeDescriptor(descriptor, "forged"));
        assertTrue(e.getMessage().startsWith("forged"), e.getMessage());
        assertTrue(e.getMessage().contains(fragment), e.getMessage());
    }

    @Test
    void aCountWhoseSizeOverflowsToANegativeCapacityIsRefused() {
        // 14 * 0x2492492492492493 = 10 (mod 2^64); the low 32 bits are negative as an int.
        assertRefused(descriptor(0x2492492492492493L, 16), "hot function count");
    }

    @Test
    void aCountWhoseSizeOverflowsToAHugeCapacityIsRefused() {
        // 14 * 0x124924924924924a = 12 (mod 2^64); the int is 1,227,133,514: gigabytes of list.
        assertRefused(descriptor(0x124924924924924aL, 16), "hot function count");
    }

    @Test
    void anEqualOffsetCountNear2To63IsRefused() {
        ByteWriter w = new ByteWriter();
        w.uleb(1); // one hot function
        w.uleb(0x1000); // its address
        w.u64(0); // hash
        w.uleb(1); // blocks
        w.uleb(0); // no secondary entry points
        w.uleb(1); // one entry
        w.uleb(Long.MAX_VALUE); // equal-offset count: (n + 7) / 8 overflowed
        w.bytes(new byte[24]);
        assertRefused(w.toByteArray(), "equal-offset count");
    }
}
