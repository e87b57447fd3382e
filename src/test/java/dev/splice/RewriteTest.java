package dev.splice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.listing.ListingWriter;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RewriteTest {
    @TempDir Path dir;

    @Test
    void insertionAtAFunctionsFirstInstructionRunsAsTheInputDoes() throws IOException {
        Path input = TestPrograms.rv64("loops.relocs");
        Binary binary = Binary.open(input);
        Function hot = binary.function("hot_loop").orElseThrow();
        Path out = dir.resolve("patched");
        binary.rewrite().insert(hot.address(), "addi zero, zero, 0\n").writeTo(out);
        assertTrue(Files.isExecutable(out));
        Tools.Result before = Tools.run("qemu-riscv64", input.toString(), "50");
        Tools.Result after = Tools.run("qemu-riscv64", out.toString(), "50");
        assertEquals(before.exitCode(), after.exitCode());
        assertEquals(before.stdout(), after.stdout());
        Function moved = Binary.open(out).function("hot_loop").orElseThrow();
        List<Instruction> instructions = moved.instructions();
        assertEquals("addi zero, zero, 0", instructions.get(0).text());
        assertEquals(hot.instructions().size() + 1, instructions.size());
    }

    @Test
    void replacingAFunctionByItsOwnListingChangesNothing() throws IOException {
        Path input = TestPrograms.rv64("loops");
        Binary binary = Binary.open(input);
        Function hot = binary.function("hot_loop").orElseThrow();
        String listing = new ListingWriter().toText(List.of(hot.region()));
        assertArrayEquals(Files.readAllBytes(input), binary.rewrite().replace("hot_loop", listing).toBytes());
    }

    @Test
    void aRefusedRewriteWritesNothing() {
        Binary binary = Binary.open(TestPrograms.rv64("loops.relocs"));
        Function hot = binary.function("hot_loop").orElseThrow();
        Path out = dir.resolve("patched");
        BadInputException e = assertThrows(BadInputException.class,
                () -> binary.rewrite().insert(hot.address() + 1, "addi zero, zero, 0\n").writeTo(out));
        assertTrue(e.getMessage().contains("not an instruction boundary"), e.getMessage());
        assertFalse(Files.exists(out));
    }
}
