package dev.splice.listing;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Inserting and deleting lines in a listing keeps branches right: edited functions of loops.c
 * are reassembled and executed under qemu-riscv64 (tests/programs/runcode.c runs raw code), and
 * must print what the original program prints.
 */
class EditTest {
    @TempDir
    Path dir;

    /** Adds {@code extra} after every instruction line of the listing. */
    private static String insertAfterEveryInstruction(String listing, String extra) {
        StringBuilder out = new StringBuilder();
        for (String line : listing.split("\n")) {
            out.append(line).append('\n');
            if (line.startsWith("        ") && !line.isBlank()) {
                out.append("        ").append(extra).append('\n');
            }
        }
        return out.toString();
    }

    private static String expected(String program, String key) {
        String out = Tools.run("qemu-riscv64", TestPrograms.rv64(program).toString(), "1000").stdout();
        Matcher m = Pattern.compile(key + "=(-?\\d+)").matcher(out);
        assertTrue(m.find(), out);
        return key + "=" + m.group(1);
    }

    private String run(byte[] code, String function) throws IOException {
        Path file = dir.resolve(function + ".bin");
        Files.write(file, code);
        Tools.Result r = Tools.run("qemu-riscv64", TestPrograms.rv64("runcode").toString(), file.toString(), function,
                function.equals("fib") ? "20" : "1000");
        r.checked("runcode " + function);
        return r.stdout().trim();
    }

    @Test
    void insertedLinesKeepLoopBranchesRightWhenExecuted() throws IOException {
        Region hot = Listings.function(TestPrograms.rv64("loops"), "hot_loop");
        String listing = new ListingWriter().toText(List.of(hot));
        assertTrue(listing.contains(".L"), "hot_loop has a loop, hence labels:\n" + listing);
        String expected = expected("loops", "hot_loop");
        assertEquals(expected, run(hot.bytes(), "hot_loop"), "the original bytes run under runcode");

        for (String extra : new String[] {"addi zero, zero, 0", "c.nop", "nop", "addi t6, t6, 1  # a dead register"}) {
            byte[] edited = Assembler.assemble(insertAfterEveryInstruction(listing, extra), "hot_loop.s").bytes();
            assertTrue(edited.length > hot.bytes().length);
            assertEquals(expected, run(edited, "hot_loop"), "with '" + extra + "' after every instruction");
        }
    }

    @Test
    void insertedLinesKeepRecursiveCallsRightWhenExecuted() throws IOException {
        Region fib = Listings.function(TestPrograms.rv64("loops"), "fib");
        String listing = new ListingWriter().toText(List.of(fib));
        String expected = expected("loops", "fib");
        byte[] edited = Assembler.assemble(insertAfterEveryInstruction(listing, "c.nop"), "fib.s").bytes();
        assertEquals(expected, run(edited, "fib"));
    }

    @Test
    void deletingLinesMovesBranchTargetsBack() {
        Region hot = Listings.function(TestPrograms.rv64("loops"), "hot_loop");
        String listing = new ListingWriter().toText(List.of(hot));
        byte[] padded = Assembler.assemble(insertAfterEveryInstruction(listing, "addi zero, zero, 0"), "hot_loop.s").bytes();
        assertNotEquals(hot.bytes().length, padded.length);
        // Disassemble the padded code afresh (new labels), delete every nop line, reassemble.
        String paddedListing = new ListingWriter().toText(List.of(Region.function("hot_loop", hot.address(), padded)));
        List<String> kept = new ArrayList<>();
        int deleted = 0;
        for (String line : paddedListing.split("\n")) {
            if (line.trim().startsWith("addi zero, zero, 0")) {
                deleted++;
            } else {
                kept.add(line);
            }
        }
        assertTrue(deleted > 10);
        assertArrayEquals(hot.bytes(), Assembler.assemble(String.join("\n", kept), "hot_loop.s").bytes());
    }
}
