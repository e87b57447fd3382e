package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.Binary;
import dev.splice.testing.TestPrograms;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 15: a symbol name is data, never code. A forged .strtab entry with a newline and an
 * instruction after it was written into the listing as a line of code, and the unedited listing
 * assembled to different bytes (one injected instruction).
 */
class HostileNamesTest {
    @Test
    void aNewlineInASymbolNameCannotBecomeCode() throws IOException {
        byte[] b = Files.readAllBytes(TestPrograms.rv64("loops"));
        Binary original = Binary.of(b, "seed");
        String victim = original.functions().stream().map(dev.splice.Function::name)
                .filter(n -> n.length() >= 8).findFirst().orElseThrow();
        // Same length: "x\nnop" padded with spaces, in place of the name's bytes in .strtab.
        byte[] forged = String.format("%-" + victim.length() + "s", "x\nnop").getBytes(StandardCharsets.US_ASCII);
        byte[] needle = (victim + "\0").getBytes(StandardCharsets.US_ASCII);
        int at = indexOf(b, needle);
        assertTrue(at > 0, victim);
        System.arraycopy(forged, 0, b, at, forged.length);
        Binary binary = Binary.of(b, "forged");
        List<Region> regions = binary.regions(List.of(), List.of());
        String text = new ListingWriter(false, binary.symbolMap()).toText(regions);
        assertFalse(text.contains("\nnop"), "the name's newline reached the listing");
        assertTrue(text.contains("x\\x0anop"), "the name is escaped");
        List<Region> back = Assembler.assemble(text, "forged.s").regions();
        for (int i = 0; i < regions.size(); i++) {
            assertArrayEquals(regions.get(i).bytes(), back.get(i).bytes(), regions.get(i).name());
        }
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 1; i + needle.length <= hay.length; i++) {
            if (hay[i - 1] != 0) {
                continue;
            }
            for (int k = 0; k < needle.length; k++) {
                if (hay[i + k] != needle[k]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Test
    void sectionsWithoutNamesGetAPlaceholderThatReassembles() throws IOException {
        byte[] b = Files.readAllBytes(TestPrograms.rv64("loops"));
        java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN).putShort(62, (short) 0); // e_shstrndx
        Binary binary = Binary.of(b, "unnamed");
        List<Region> regions = binary.regions(List.of(), List.of());
        assertTrue(regions.stream().anyMatch(r -> r.name().isEmpty()), "the forged file still names its sections");
        String text = new ListingWriter(false, binary.symbolMap()).toText(regions);
        assertFalse(text.contains(" , 0x"), "a region line without a name");
        List<Region> back = Assembler.assemble(text, "unnamed.s").regions();
        for (int i = 0; i < regions.size(); i++) {
            assertArrayEquals(regions.get(i).bytes(), back.get(i).bytes(), regions.get(i).name());
            assertTrue(back.get(i).address() == regions.get(i).address());
        }
    }

    /**
     * Two executable sections over the same addresses (a forged header: {@code .comment} made a copy
     * of {@code .text}'s) gave both regions the same {@code .L} labels, so the unedited listing did not
     * assemble ("duplicate label").
     */
    @Test
    void overlappingExecutableSectionsGetDistinctLabels() throws IOException {
        byte[] b = Files.readAllBytes(TestPrograms.rv64("loops"));
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        int shoff = (int) buf.getLong(0x28);
        int shnum = buf.getShort(0x3c) & 0xffff;
        int names = (int) buf.getLong(shoff + 64 * (buf.getShort(0x3e) & 0xffff) + 0x18);
        int text = -1;
        int comment = -1;
        for (int i = 0; i < shnum; i++) {
            int at = names + buf.getInt(shoff + 64 * i);
            String name = new String(b, at, indexOf(b, new byte[] {0}, at) - at, StandardCharsets.US_ASCII);
            text = name.equals(".text") ? i : text;
            comment = name.equals(".comment") ? i : comment;
        }
        assertTrue(text > 0 && comment > 0, "loops has .text and .comment");
        // .comment's header becomes .text's (name kept), so two executable sections cover the same code.
        System.arraycopy(b, shoff + 64 * text + 4, b, shoff + 64 * comment + 4, 60);
        Binary binary = Binary.of(b, "overlapping");
        List<Region> regions = binary.regions(List.of(), List.of());
        assertTrue(regions.stream().filter(r -> r.address() == regions.stream().filter(q -> q.name().equals(".text"))
                .findFirst().orElseThrow().address()).count() == 2, "two regions at .text's address");
        String listing = new ListingWriter(false, binary.symbolMap()).toText(regions);
        List<Region> back = Assembler.assemble(listing, "overlapping.s").regions();
        for (int i = 0; i < regions.size(); i++) {
            assertArrayEquals(regions.get(i).bytes(), back.get(i).bytes(), regions.get(i).name());
            assertTrue(back.get(i).address() == regions.get(i).address());
        }
        // Files without overlap keep their labels unchanged.
        Binary plain = Binary.of(Files.readAllBytes(TestPrograms.rv64("loops")), "loops");
        assertFalse(new ListingWriter(false, plain.symbolMap()).toText(plain.regions(List.of(), List.of())).contains("_r1:"));
    }

    /**
     * A section name is an operand of its region line: a forged {@code .text} named {@code #x}
     * started a comment there, so the line lost its address and the unedited listing did not
     * assemble (found by a 20-minute fuzz run: {@code .section NAME, ADDRESS} expected). A
     * parenthesis in the name (found by session 8's fuzz run) opened a group, inside which the
     * comma before the address did not end the operand.
     */
    @Test
    void sectionNamesWithCommentCommaSpaceOrParenthesisReassemble() throws IOException {
        for (String forged : new String[] {"#t,xt", ".t,x ", "     ", "(text", ".t)(x"}) {
            byte[] b = Files.readAllBytes(TestPrograms.rv64("loops"));
            int at = indexOf(b, ".text\0".getBytes(StandardCharsets.US_ASCII), 0);
            assertTrue(at > 0);
            System.arraycopy(forged.getBytes(StandardCharsets.US_ASCII), 0, b, at, 5);
            Binary binary = Binary.of(b, "forged");
            List<Region> regions = binary.regions(List.of(), List.of());
            assertTrue(regions.stream().anyMatch(r -> r.name().equals(forged)), "the forged name is read: " + forged);
            String text = new ListingWriter(false, binary.symbolMap()).toText(regions);
            List<Region> back = Assembler.assemble(text, "forged.s").regions();
            for (int i = 0; i < regions.size(); i++) {
                assertArrayEquals(regions.get(i).bytes(), back.get(i).bytes(), regions.get(i).name());
                assertTrue(back.get(i).address() == regions.get(i).address(), forged);
            }
        }
    }

    private static int indexOf(byte[] hay, byte[] needle, int from) {
        for (int i = from; i + needle.length <= hay.length; i++) {
            if (java.util.Arrays.equals(hay, i, i + needle.length, needle, 0, needle.length)) {
                return i;
            }
        }
        return -1;
    }
}
