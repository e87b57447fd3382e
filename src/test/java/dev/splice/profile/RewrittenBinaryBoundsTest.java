package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.testing.TestPrograms;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: the byte comparison that names a BOLTed function after the input's takes its size from
 * a symbol of the file. A forged size gave a negative array length, and one copy of the section per
 * forged symbol allocated 3.0 GB for a 32 KB input.
 */
class RewrittenBinaryBoundsTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void forgedSizesCompareAsDifferentWithoutAllocating() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("count_loop"));
        Section text = elf.section(".text").orElseThrow();
        long a = text.address();
        assertTrue(RewrittenBinary.sameBytes(elf, elf, a, text.size()), "a real function compares equal to itself");
        for (long forged : new long[] {-1, -text.size(), Long.MIN_VALUE, Long.MAX_VALUE, text.size() + 1, 1L << 32}) {
            assertFalse(RewrittenBinary.sameBytes(elf, elf, a, forged), "size " + forged);
            assertFalse(RewrittenBinary.sameBytes(elf, elf, a + text.size() - 2, forged), "size " + forged + " near the end");
        }
        assertFalse(RewrittenBinary.sameBytes(elf, elf, -8, 16), "an address no section holds");
        // As a forged symbol table naming 1,000 functions that each span all of glibc's .text (about
        // 400 KB): copying it per comparison allocated about 800 MB.
        ElfFile big = ElfFile.read(TestPrograms.rv64("loops"));
        Section bigText = big.section(".text").orElseThrow();
        big.buffer(bigText); // the file's own mapping, made once, is not what is measured
        long id = Thread.currentThread().getId();
        long before = THREADS.getThreadAllocatedBytes(id);
        for (int i = 0; i < 1_000; i++) {
            assertTrue(RewrittenBinary.sameBytes(big, big, bigText.address(), bigText.size()));
        }
        long allocated = THREADS.getThreadAllocatedBytes(id) - before;
        assertTrue(allocated < 16L << 20, "1,000 comparisons of the whole .text allocated " + (allocated >> 20) + " MiB");
    }
}
