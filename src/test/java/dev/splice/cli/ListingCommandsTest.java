package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** splice disasm / asm / export through Main.execute, checked against GNU objcopy and llvm-objdump. */
class ListingCommandsTest {
    @TempDir
    Path dir;

    /** The section's bytes as GNU objcopy extracts them (the oracle). */
    private byte[] objcopy(Path program, String section) throws IOException {
        Path out = dir.resolve("objcopy-" + section.replace('.', '_') + ".bin");
        Tools.run("riscv64-linux-gnu-objcopy", "-O", "binary", "--only-section=" + section, program.toString(), out.toString())
                .checked("objcopy");
        return Files.readAllBytes(out);
    }

    @Test
    void disasmThenAsmGivesTheSectionBytes() throws IOException {
        Path loops = TestPrograms.rv64("loops");
        Path listing = dir.resolve("loops.s");
        assertEquals(Main.OK, Main.execute("disasm", loops.toString(), "-o", listing.toString()));
        String text = Files.readString(listing);
        assertTrue(text.startsWith(".target rv64gc"), text.substring(0, 100));
        assertTrue(text.contains(".section .text, 0x"));
        for (String section : new String[] {".text", "__libc_freeres_fn"}) {
            Path bin = dir.resolve(section + ".bin");
            assertEquals(Main.OK, Main.execute("asm", listing.toString(), "--region", section, "-o", bin.toString()));
            assertArrayEquals(objcopy(loops, section), Files.readAllBytes(bin), section);
        }
        // Several regions and no --region: a clear refusal, exit 2.
        assertEquals(Main.BAD_INPUT, Main.execute("asm", listing.toString(), "-o", dir.resolve("x.bin").toString()));
        assertFalse(Files.exists(dir.resolve("x.bin")));
    }

    @Test
    void oneSectionListingAndRawListingReassemble() throws IOException {
        Path loops = TestPrograms.rv64("loops.norvc");
        Path listing = dir.resolve("text.s");
        assertEquals(Main.OK, Main.execute("disasm", loops.toString(), "--section", ".text", "-o", listing.toString()));
        Path bin = dir.resolve("text.bin");
        assertEquals(Main.OK, Main.execute("asm", listing.toString(), "-o", bin.toString()));
        byte[] text = objcopy(loops, ".text");
        assertArrayEquals(text, Files.readAllBytes(bin));

        Path raw = dir.resolve("raw.s");
        assertEquals(Main.OK, Main.execute("disasm", "--raw", bin.toString(), "--base", "0x10000", "-o", raw.toString()));
        assertTrue(Files.readString(raw).contains(".origin 0x10000"));
        Path back = dir.resolve("raw.bin");
        assertEquals(Main.OK, Main.execute("asm", raw.toString(), "-o", back.toString()));
        assertArrayEquals(text, Files.readAllBytes(back));
    }

    @Test
    void functionListingHasLabelsAndNamedOutsideTargets() throws IOException {
        Path listing = dir.resolve("main.s");
        assertEquals(Main.OK, Main.execute("disasm", TestPrograms.rv64("loops").toString(), "--function", "main",
                "-o", listing.toString()));
        String text = Files.readString(listing);
        assertTrue(text.contains(".function main, 0x"), text);
        // main calls hot_loop, classify, fib: outside targets stay absolute with a <symbol> comment.
        assertTrue(text.contains("<hot_loop>") && text.contains("<fib>") && text.contains("<classify>"), text);
    }

    @Test
    void jsonlAgreesWithLlvmObjdumpOnAddressesAndMnemonics() throws IOException {
        Path loops = TestPrograms.rv64("loops");
        Path out = dir.resolve("hot.jsonl");
        assertEquals(Main.OK, Main.execute("disasm", loops.toString(), "--function", "hot_loop", "--format", "jsonl",
                "-o", out.toString()));
        ObjectMapper mapper = new ObjectMapper();
        List<JsonNode> objects = new ArrayList<>();
        for (String line : Files.readAllLines(out)) {
            if (!line.isBlank()) {
                objects.add(mapper.readTree(line));
            }
        }
        String objdump = Tools.run("llvm-objdump-22", "-d", "-M", "no-aliases", "--no-show-raw-insn",
                "--disassemble-symbols=hot_loop", loops.toString()).checked("llvm-objdump").stdout();
        Matcher m = Pattern.compile("(?m)^\\s*([0-9a-f]+):\\s+(\\S+)").matcher(objdump);
        List<String> expected = new ArrayList<>();
        while (m.find()) {
            expected.add(Long.parseLong(m.group(1), 16) + " " + m.group(2));
        }
        List<String> actual = new ArrayList<>();
        for (JsonNode o : objects) {
            assertTrue(o.get("address").isNumber() && o.get("size").isInt() && o.get("valid").isBoolean(), o.toString());
            assertTrue(o.get("encoding").asText().matches("[0-9a-f]+"), o.toString());
            assertEquals(o.get("mnemonic").asText() + (o.get("operands").asText().isEmpty() ? "" : " " + o.get("operands").asText()),
                    o.get("text").asText());
            actual.add(o.get("address").asLong() + " " + o.get("mnemonic").asText());
        }
        assertEquals(expected, actual);
    }

    @Test
    void exportWritesOneReassemblableListingPerFunction() throws IOException {
        Path loops = TestPrograms.rv64("loops");
        Path out = dir.resolve("export");
        assertEquals(Main.OK, Main.execute("export", loops.toString(), "--output-dir", out.toString()));
        assertTrue(Files.exists(out.resolve("hot_loop.s")));
        List<Path> files;
        try (Stream<Path> s = Files.list(out)) {
            files = s.sorted().toList();
        }
        assertTrue(files.size() > 100, "files: " + files.size());
        // hot_loop's bytes from objdump's view of the function (independent of Splice's ELF reader).
        Path bin = dir.resolve("hot_loop.bin");
        assertEquals(Main.OK, Main.execute("asm", out.resolve("hot_loop.s").toString(), "-o", bin.toString()));
        String objdump = Tools.run("riscv64-linux-gnu-objdump", "-d", "--disassemble=hot_loop", loops.toString()).stdout();
        Matcher m = Pattern.compile("(?m)^\\s*[0-9a-f]+:\\s+([0-9a-f]{4,8})\\s").matcher(objdump);
        java.io.ByteArrayOutputStream expected = new java.io.ByteArrayOutputStream();
        while (m.find()) {
            long word = Long.parseLong(m.group(1), 16);
            for (int i = 0; i < m.group(1).length() / 2; i++) {
                expected.write((int) (word >>> (8 * i)));
            }
        }
        assertArrayEquals(expected.toByteArray(), Files.readAllBytes(bin));
        // Every exported listing assembles to its function's bytes (through the API: 800 CLI runs
        // would only repeat the start-up); the file name is safe and names the function.
        java.util.Map<Long, byte[]> byAddress = new java.util.HashMap<>();
        for (dev.splice.Function f : dev.splice.Binary.open(loops).functions()) {
            if (f.size() > 0) {
                byAddress.put(f.address(), f.bytes());
            }
        }
        for (Path file : files) {
            assertTrue(file.getFileName().toString().matches("[A-Za-z0-9_][A-Za-z0-9._@~-]*\\.s"), file.toString());
            dev.splice.listing.Assembly assembly = dev.splice.listing.Assembler.assemble(file);
            String function = assembly.regions().get(0).name();
            assertTrue(file.getFileName().toString().startsWith(ExportCommand.safe(function)), file + " holds " + function);
            assertArrayEquals(byAddress.get(assembly.address()), assembly.bytes(), file.toString());
        }
    }

    @Test
    void badInputsExitWithTwoAndUsageErrorsWithOne() throws IOException {
        Path bad = dir.resolve("bad.s");
        Files.writeString(bad, ".target rv64gc\n  addi a0, a0, 99999\n");
        assertEquals(Main.BAD_INPUT, Main.execute("asm", bad.toString(), "-o", dir.resolve("bad.bin").toString()));
        assertFalse(Files.exists(dir.resolve("bad.bin")));
        assertEquals(Main.BAD_INPUT, Main.execute("disasm", dir.resolve("missing").toString()));
        assertEquals(Main.BAD_INPUT, Main.execute("disasm", TestPrograms.x86_64("loops").toString()));
        assertEquals(Main.BAD_INPUT, Main.execute("disasm", TestPrograms.rv64("loops").toString(), "--function", "no_such"));
        assertEquals(Main.USAGE, Main.execute("disasm"));
        assertEquals(Main.USAGE, Main.execute("disasm", "x", "--format", "xml"));
        assertEquals(Main.USAGE, Main.execute("export", TestPrograms.rv64("loops").toString()));
    }
}
