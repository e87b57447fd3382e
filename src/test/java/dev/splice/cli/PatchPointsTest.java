package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.elf.ElfFile;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code splice patch --at/--plan/--strict/--json}: the patched programs run under qemu-riscv64
 * with the input's output and exit status, and fragments that write one character each (a
 * write(2) to stderr, registers saved on the stack) show where and how often they ran.
 */
class PatchPointsTest {
    @TempDir Path tmp;

    /** A fragment that writes {@code c} to stderr and changes nothing else. */
    private Path mark(char c) throws Exception {
        Path p = tmp.resolve("mark-" + (int) c + ".s");
        Files.writeString(p, """
                addi sp, sp, -48
                sd a0, 0(sp)
                sd a1, 8(sp)
                sd a2, 16(sp)
                sd a7, 24(sp)
                li a0, %d
                sd a0, 32(sp)
                li a0, 2
                addi a1, sp, 32
                li a2, 1
                li a7, 64
                ecall
                ld a0, 0(sp)
                ld a1, 8(sp)
                ld a2, 16(sp)
                ld a7, 24(sp)
                addi sp, sp, 48
                """.formatted((int) c));
        return p;
    }

    private static CliRun patch(String... args) {
        List<String> all = new ArrayList<>(List.of("patch"));
        all.addAll(List.of(args));
        return CliRun.of(all.toArray(String[]::new));
    }

    @Test
    void aFragmentAtTheHotLoopsHeadRunsOncePerIterationAndTheProgramStillPrintsTheSame() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        Path out = tmp.resolve("counted");
        CliRun run = patch(in.toString(), "--at", "loop:hot_loop", mark('L').toString(), "-o", out.toString());
        assertEquals(0, run.status(), run.err());
        for (int n : new int[] {50, 7, 1}) {
            Tools.Result before = Tools.run("qemu-riscv64", in.toString(), Integer.toString(n));
            Tools.Result after = Tools.run("qemu-riscv64", out.toString(), Integer.toString(n));
            assertEquals(before.exitCode(), after.exitCode());
            assertEquals(before.stdout(), after.stdout());
            assertEquals("L".repeat(n), after.stderr(), "hot_loop's body runs n = " + n + " times");
        }
    }

    @Test
    void fragmentsAtOneBoundaryRunInCommandLineOrderAndEveryKindRunsWhereItShould() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        long hot = ElfFile.read(in).function("hot_loop").orElseThrow().address();
        Path out = tmp.resolve("ordered");
        CliRun run = patch(in.toString(), "--insert", "0x" + Long.toHexString(hot), mark('I').toString(),
                "--at", "entry:hot_loop", mark('A').toString(), "--at", "hot_loop", mark('B').toString(),
                "--at", "loop:hot_loop", mark('L').toString(), "--at", "exit:hot_loop", mark('X').toString(),
                "-o", out.toString());
        assertEquals(0, run.status(), run.err());
        Tools.Result after = Tools.run("qemu-riscv64", out.toString(), "5");
        assertEquals(Tools.run("qemu-riscv64", in.toString(), "5").stdout(), after.stdout());
        assertEquals("IAB" + "LLLLL" + "X", after.stderr(), "--insert first, then the --at fragments in order; one exit");
        // No iteration (n = 0): hot_loop leaves by its other return.
        assertEquals("IABX", Tools.run("qemu-riscv64", out.toString(), "0").stderr());
    }

    @Test
    void callsAndTailCallsThroughAuipcPairsAreInstrumentedBeforeTheAuipc() throws Exception {
        Path in = TestPrograms.rv64("call_pairs.relocs");
        Path out = tmp.resolve("calls");
        CliRun run = patch(in.toString(), "--at", "call:run", mark('C').toString(), "--at", "exit:plus_one_tail",
                mark('T').toString(), "--at", "exit:run", mark('R').toString(), "--at", "block:twice", mark('w').toString(),
                "-o", out.toString());
        assertEquals(0, run.status(), run.err());
        Tools.Result after = Tools.run("qemu-riscv64", out.toString());
        assertEquals(Tools.run("qemu-riscv64", in.toString()).exitCode(), after.exitCode());
        assertEquals(7, after.exitCode());
        assertEquals("CwCTR", after.stderr());
        // twice (4 bytes) moves: nothing needs its old entry (run, which calls it by an auipc pair, moves too).
        assertTrue(!run.err().contains("refused"), run.err());
    }

    @Test
    void aPatternsRefusedPointsAreLeftOutAndCountedUnlessStrict() throws Exception {
        Path in = TestPrograms.rv64("call_pairs.relocs");
        // Writes ra without changing it: harmless before the ret, refused between the auipc ra and
        // jalr ra of a call (a fragment that leaves the pair's register alone may go there).
        Path nop = tmp.resolve("nop.s");
        Files.writeString(nop, "addi ra, ra, 0\n");
        Path out = tmp.resolve("out");
        CliRun lenient = patch(in.toString(), "--at", "insn:run:jalr|c\\.jr", nop.toString(), "-o", out.toString(), "--verbose");
        assertEquals(0, lenient.status(), lenient.err());
        assertTrue(lenient.err().contains("inserted at 1 points; left out 2 refused points:"), lenient.err());
        assertTrue(lenient.err().contains("run+0x8 (insn:run:jalr|c\\.jr): INSIDE_PC_RELATIVE_PAIR: 0x"), lenient.err());
        assertEquals(7, Tools.run("qemu-riscv64", out.toString()).exitCode());
        Path strictOut = tmp.resolve("strict");
        CliRun strict = patch(in.toString(), "--at", "insn:run:jalr", nop.toString(), "--strict", "-o", strictOut.toString());
        assertEquals(2, strict.status());
        assertTrue(strict.err().contains("at run+0x8 (selected by 'insn:run:jalr'): 0x"), strict.err());
        assertTrue(strict.err().contains("inside the pc-relative pair"), strict.err());
        assertFalse(Files.exists(strictOut));
        // An explicit spec is refused as --insert refuses it, with the same message.
        long middle = ElfFile.read(in).function("run").orElseThrow().address() + 8;
        CliRun at = patch(in.toString(), "--at", "run+8", nop.toString(), "-o", strictOut.toString());
        CliRun insert = patch(in.toString(), "--insert", Long.toString(middle), nop.toString(), "-o", strictOut.toString());
        assertEquals(2, at.status());
        assertEquals(insert.err(), at.err());
        assertFalse(Files.exists(strictOut));
    }

    @Test
    void anAddressOrSymbolSpecMakesWhatInsertMakes() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        long head = ElfFile.read(in).function("hot_loop").orElseThrow().address() + 0xa;
        Path insert = tmp.resolve("insert");
        Path at = tmp.resolve("at");
        Path symbol = tmp.resolve("symbol");
        Path fragment = mark('L');
        assertEquals(0, patch(in.toString(), "--insert", "0x" + Long.toHexString(head), fragment.toString(), "-o", insert.toString())
                .status());
        assertEquals(0, patch(in.toString(), "--at", Long.toString(head), fragment.toString(), "-o", at.toString()).status());
        assertEquals(0, patch(in.toString(), "--at", "hot_loop+0xa", fragment.toString(), "-o", symbol.toString()).status());
        assertArrayEquals(Files.readAllBytes(insert), Files.readAllBytes(at));
        assertArrayEquals(Files.readAllBytes(insert), Files.readAllBytes(symbol));
    }

    @Test
    void badSpecsAreNamedWithTheirPosition() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        Path nop = tmp.resolve("nop.s");
        Files.writeString(nop, "addi x0, x0, 0\n");
        CliRun bad = patch(in.toString(), "--at", "main", nop.toString(), "--at", "loop:hot[", nop.toString(), "-o",
                tmp.resolve("x").toString());
        assertEquals(2, bad.status());
        assertEquals("splice: --at number 2: point spec 'loop:hot[', column 9: '[' opens a class that no ']' closes\n", bad.err());
        CliRun none = patch(in.toString(), "--at", "entry:no_such_*", nop.toString(), "-o", tmp.resolve("x").toString());
        assertEquals(2, none.status());
        assertTrue(none.err().contains("'entry:no_such_*': no function of"), none.err());
    }

    @Test
    void plansInBothFormsDoWhatTheCommandLineDoes() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        Path dir = Files.createDirectories(tmp.resolve("plans/frags"));
        Files.copy(mark('A'), dir.resolve("a.s"));
        Files.copy(mark('L'), dir.resolve("l.s"));
        Path direct = tmp.resolve("direct");
        assertEquals(0, patch(in.toString(), "--at", "entry:hot_loop", dir.resolve("a.s").toString(), "--at", "loop:hot_loop",
                dir.resolve("l.s").toString(), "-o", direct.toString()).status());
        Path lines = tmp.resolve("plans/plan.txt");
        Files.writeString(lines, "# the hot loop\n\n  entry:hot_loop   frags/a.s\nloop:hot_loop frags/l.s\n");
        Path json = tmp.resolve("plans/plan.json");
        Files.writeString(json, """
                {"insertions": [
                  {"at": "entry:hot_loop", "fragment": "frags/a.s"},
                  {"at": "loop:hot_loop", "code": %s}
                ]}
                """.formatted(new ObjectMapper().writeValueAsString(Files.readString(dir.resolve("l.s")))));
        for (Path plan : List.of(lines, json)) {
            Path out = tmp.resolve("from-" + plan.getFileName());
            CliRun run = patch(in.toString(), "--plan", plan.toString(), "-o", out.toString());
            assertEquals(0, run.status(), run.err());
            assertArrayEquals(Files.readAllBytes(direct), Files.readAllBytes(out), plan + " makes the same binary");
            assertEquals("A" + "L".repeat(9), Tools.run("qemu-riscv64", out.toString(), "9").stderr());
        }
    }

    @Test
    void planErrorsSayFileLineAndColumn() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        Files.writeString(tmp.resolve("a.s"), "addi x0, x0, 0\n");
        planError("ok.txt", "entry:main a.s\n   loop:ma[in a.s\n", ":2:11: point spec 'loop:ma[in': '[' opens a class");
        planError("fields.txt", "entry:main\n", ":1:1: expected 'SPEC FRAGMENT-FILE', found 1 field");
        planError("missing.txt", "# c\nentry:main  nothere.s\n", ":2:13: fragment nothere.s: cannot read");
        planError("syntax.json", "{\"insertions\": [\n  {\"at\": \"entry:main\" \"fragment\": \"a.s\"}]}", ":2:");
        planError("field.json", "{\"insertions\": [\n  {\"at\": \"entry:main\", \"frag\": \"a.s\"}]}",
                ":2:3: unknown field 'frag'");
        planError("both.json", "{\"insertions\": [{\"at\": \"entry:main\"}]}", ":1:17: give exactly one of 'fragment'");
        planError("spec.json", "{\"insertions\": [\n {\"at\": \"nope:main\", \"code\": \"nop\"}]}",
                ":2:2: point spec 'nope:main', column 1: unknown point kind 'nope'");
        planError("top.json", "{\"points\": []}", ":1:2: unknown field 'points'");
    }

    private void planError(String name, String text, String expected) throws Exception {
        Path plan = tmp.resolve(name);
        Files.writeString(plan, text);
        CliRun run = patch(TestPrograms.rv64("loops.relocs").toString(), "--plan", plan.toString(), "-o", tmp.resolve("o").toString());
        assertEquals(2, run.status(), name);
        assertTrue(run.err().startsWith("splice: " + plan + expected.substring(0, expected.indexOf(':', 1) + 1)), run.err());
        assertTrue(run.err().contains(plan + expected), name + ": " + run.err());
    }

    @Test
    void jsonReportsPointsMovedFunctionsAndNewSectionsAsReadelfSeesThem() throws Exception {
        Path in = TestPrograms.rv64("loops.relocs");
        Path out = tmp.resolve("reported");
        CliRun run = patch(in.toString(), "--at", "loop:hot_loop", mark('L').toString(), "--at", "insn:classify:.*",
                mark('c').toString(), "--json", "-o", out.toString());
        assertEquals(0, run.status(), run.err());
        JsonNode json = new ObjectMapper().readTree(run.out());
        assertEquals(Files.size(in), json.get("inputSize").asLong());
        assertEquals(Files.size(out), json.get("outputSize").asLong());
        JsonNode inserted = json.get("inserted");
        assertEquals("loop", inserted.get(0).get("kind").asText());
        assertEquals("hot_loop", inserted.get(0).get("function").asText());
        int refused = json.get("refused").size();
        assertEquals(ElfFile.read(in).function("classify").orElseThrow().size() > 0, inserted.size() + refused > 10);
        for (JsonNode r : json.get("refused")) {
            assertFalse(r.get("reason").asText().isEmpty());
        }
        // Moved functions and new sections, against readelf.
        String symbols = Tools.run("readelf", "-sW", out.toString()).checked("readelf").stdout();
        List<String> moved = new ArrayList<>();
        for (JsonNode m : json.get("moved")) {
            moved.add(m.get("function").asText());
            String value = String.format("%016x", Long.decode(m.get("to").asText()));
            assertTrue(symbols.lines().anyMatch(l -> l.contains(value) && l.trim().endsWith(" " + m.get("function").asText())),
                    m.toString());
        }
        assertTrue(moved.containsAll(List.of("hot_loop", "classify")), moved.toString());
        String sections = Tools.run("readelf", "-SW", out.toString()).checked("readelf").stdout();
        List<String> names = new ArrayList<>();
        for (JsonNode s : json.get("sections")) {
            names.add(s.get("name").asText());
            String address = String.format("%016x", Long.decode(s.get("address").asText()));
            String size = String.format("%06x", s.get("size").asLong());
            assertTrue(sections.lines().anyMatch(l -> l.contains(" " + s.get("name").asText() + " ") && l.contains(address)
                    && l.contains(size)), s + "\n" + sections);
        }
        // The relocation sections of the new code and of the old entries' jumps describe the output (docs/patch.md).
        assertEquals(List.of(".splice.text", ".rela.splice.org.text", ".rela.splice.text", ".note.bolt_bat"), names);
        String segments = Tools.run("readelf", "-lW", out.toString()).checked("readelf").stdout();
        // New or changed program headers: one new PT_LOAD for the code (the notes that make room for the
        // grown table move behind it, so PT_NOTE may change too); every one is in readelf's table.
        List<JsonNode> loads = new ArrayList<>();
        for (JsonNode g : json.get("segments")) {
            assertTrue(segments.lines().anyMatch(l -> l.trim().startsWith(g.get("type").asText()) && l.contains(String.format("0x%016x",
                    Long.decode(g.get("address").asText())))), g + "\n" + segments);
            if (g.get("type").asText().equals("LOAD")) {
                loads.add(g);
            }
        }
        assertEquals(1, loads.size(), json.get("segments").toString());
        JsonNode load = loads.get(0);
        assertEquals(json.get("sections").get(0).get("address").asText(), load.get("address").asText());
        assertTrue(segments.lines().anyMatch(l -> l.trim().startsWith("LOAD") && l.contains(String.format("0x%016x",
                Long.decode(load.get("address").asText())))), segments);
    }
}
