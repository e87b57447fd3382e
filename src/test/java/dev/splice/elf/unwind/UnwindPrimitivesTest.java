package dev.splice.elf.unwind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.base.ByteReader;
import dev.splice.base.ByteWriter;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.testing.TestPrograms;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The encoding primitives a rewriter builds on (CFA advances, DW_EH_PE pointers) at their
 * boundaries, and the readers on damaged sections: read, or refused with the source and an offset.
 */
class UnwindPrimitivesTest {
    @Test
    void advancesTakeTheSmallestFormAndReadBack() {
        long[] deltas = {0, 1, 63, 64, 255, 256, 65535, 65536, 0xffffffffL};
        int[] sizes = {1, 1, 1, 2, 2, 3, 3, 5, 5};
        for (int i = 0; i < deltas.length; i++) {
            ByteWriter w = new ByteWriter();
            Cfa.writeAdvance(w, deltas[i]);
            byte[] b = w.toByteArray();
            assertEquals(sizes[i], b.length, "advance " + deltas[i]);
            CfaReader r = new CfaReader(b, 0, b.length, PointerEncoding.DW_EH_PE_SDATA4, "test");
            assertTrue(r.next());
            assertTrue(r.isAdvance());
            assertEquals(deltas[i], r.delta());
            assertEquals(b.length, r.end());
            assertFalse(r.next());
        }
        assertThrows(IllegalArgumentException.class, () -> Cfa.writeAdvance(new ByteWriter(), -1));
        assertThrows(IllegalArgumentException.class, () -> Cfa.writeAdvance(new ByteWriter(), 1L << 32));
    }

    @Test
    void unknownAndTruncatedInstructionsAreRefusedAtTheirOffset() {
        byte[] unknown = {0x0a, 0x2d};
        CfaReader r = new CfaReader(unknown, 0, unknown.length, 0, "test");
        assertTrue(r.next());
        UnwindFormatException e = assertThrows(UnwindFormatException.class, r::next);
        assertEquals("test: offset 1: CFA instruction 0x2d is not handled", e.getMessage());
        byte[] truncated = {0x0c, 0x02, (byte) 0x80};
        e = assertThrows(UnwindFormatException.class, () -> new CfaReader(truncated, 0, truncated.length, 0, "test").next());
        assertEquals("CFA instruction runs past the end of its FDE", e.reason());
    }

    @Test
    void pointersFitTheirFormatOrAreNotWritten() {
        byte[] b = new byte[8];
        int sdata4Pcrel = PointerEncoding.DW_EH_PE_PCREL | PointerEncoding.DW_EH_PE_SDATA4;
        long field = 0x10000;
        for (long target : new long[] {field + Integer.MAX_VALUE, field + Integer.MIN_VALUE, field, 0x1234}) {
            assertTrue(PointerEncoding.write(b, 2, sdata4Pcrel, field, target));
            assertEquals(target, PointerEncoding.read(new ByteReader(b, 2, b.length, "t"), sdata4Pcrel, field - 2));
        }
        assertFalse(PointerEncoding.write(b, 0, sdata4Pcrel, field, field + Integer.MAX_VALUE + 1L));
        assertFalse(PointerEncoding.write(b, 0, PointerEncoding.DW_EH_PE_UDATA2, 0, 0x10000));
        assertTrue(PointerEncoding.write(b, 0, PointerEncoding.DW_EH_PE_UDATA2, 0, 0xffff));
        assertEquals(0xffff, PointerEncoding.readValue(new ByteReader(b, 0, 2, "t"), PointerEncoding.DW_EH_PE_UDATA2));
        assertEquals(-1, PointerEncoding.readValue(new ByteReader(b, 0, 2, "t"), PointerEncoding.DW_EH_PE_SDATA2));
        assertEquals(-1, PointerEncoding.size(PointerEncoding.DW_EH_PE_ULEB128));
        assertEquals(0, PointerEncoding.size(PointerEncoding.DW_EH_PE_OMIT));
        assertFalse(PointerEncoding.isApplied(PointerEncoding.DW_EH_PE_DATAREL | PointerEncoding.DW_EH_PE_SDATA4));
        assertTrue(PointerEncoding.isApplied(0x9b)); // indirect pc-relative sdata4: the usual personality pointer
    }

    @Test
    void mutatedSectionsAreReadOrRefusedWithAnOffset() {
        ElfFile elf = ElfFile.read(TestPrograms.x86_64Static("exceptions"));
        Section eh = elf.section(".eh_frame").orElseThrow();
        byte[] original = elf.contents(eh);
        Random random = new Random(13);
        int parsed = 0;
        for (int trial = 0; trial < 1500; trial++) {
            byte[] b = mutate(original, random);
            try {
                EhFrame frame = EhFrame.parse(b, eh.address(), "mutated");
                parsed++;
                for (EhFrame.Entry r : frame.records()) {
                    assertTrue(r.offset() < r.instructions() && r.instructions() <= r.end() && r.end() <= b.length, "bounds");
                    CfaReader cfa = frame.cfaReader(r);
                    while (cfa.next()) {
                        assertTrue(cfa.end() > cfa.start() && cfa.end() <= r.end());
                    }
                }
            } catch (BadInputException e) {
                assertTrue(e.getMessage().startsWith("mutated: offset "), e.getMessage());
            }
        }
        assertTrue(parsed > 0, "every mutation refused");
        ElfFile withHeader = ElfFile.read(TestPrograms.x86_64("exceptions"));
        Section hdr = withHeader.section(".eh_frame_hdr").orElseThrow();
        byte[] header = withHeader.contents(hdr);
        for (int trial = 0; trial < 1500; trial++) {
            byte[] b = mutate(header, random);
            try {
                EhFrameHeader h = EhFrameHeader.parse(b, hdr.address(), "mutated");
                assertTrue(h.tableOffset() + (long) h.count() * EhFrameHeader.ROW_SIZE <= b.length);
            } catch (BadInputException e) {
                assertTrue(e.getMessage().startsWith("mutated: offset "), e.getMessage());
            }
        }
    }

    private static byte[] mutate(byte[] original, Random random) {
        byte[] b = original.clone();
        for (int k = 0; k < 1 + random.nextInt(4); k++) {
            b[random.nextInt(b.length)] = (byte) random.nextInt(256);
        }
        return random.nextInt(3) == 0 ? Arrays.copyOf(b, random.nextInt(b.length)) : b;
    }
}
