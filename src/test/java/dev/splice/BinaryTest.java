package dev.splice;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.isa.ControlFlow;
import dev.splice.listing.JsonlWriter;
import dev.splice.listing.SymbolMap;
import dev.splice.testing.TestPrograms;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BinaryTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String BRANCHES = "beq|bne|blt|bge|bltu|bgeu|c\\.beqz|c\\.bnez";

    @Test
    void functionsAreTheElfFilesFunctions() {
        Path loops = TestPrograms.rv64("loops");
        ElfFile elf = ElfFile.read(loops);
        List<Function> functions = Binary.open(loops).functions();
        assertEquals(elf.functions().size(), functions.size());
        for (int i = 0; i < functions.size(); i++) {
            assertEquals(elf.functions().get(i).name(), functions.get(i).name());
            assertEquals(elf.functions().get(i).address(), functions.get(i).address());
            assertEquals(elf.functions().get(i).size(), functions.get(i).size());
            assertEquals(elf.functions().get(i).section(), functions.get(i).section());
        }
        Binary binary = Binary.open(loops);
        Function hot = binary.function("hot_loop").orElseThrow();
        assertTrue(hot.hasCode());
        assertEquals(hot, binary.functionContaining(hot.address() + 2).orElseThrow());
        assertTrue(binary.functions().contains(hot));
    }

    /** Address, size, bytes, exact text and target of every item as {@code splice disasm --format jsonl} gives them. */
    @ParameterizedTest
    @ValueSource(strings = {"loops", "loops.norvc", "exceptions.relocs", "runcode"})
    void everyFunctionDecodesAsTheJsonlListingDoes(String program) throws IOException {
        Binary binary = Binary.open(TestPrograms.rv64(program));
        int checked = 0;
        for (Function f : binary.functions()) {
            if (!f.hasCode()) {
                continue;
            }
            ByteArrayOutputStream jsonl = new ByteArrayOutputStream();
            new JsonlWriter(false, SymbolMap.EMPTY).write(List.of(f.region()), jsonl);
            List<JsonNode> expected = new ArrayList<>();
            for (String line : jsonl.toString(StandardCharsets.UTF_8).split("\n")) {
                if (!line.isBlank()) {
                    expected.add(JSON.readTree(line));
                }
            }
            List<Instruction> instructions = f.instructions();
            assertEquals(expected.size(), instructions.size(), f.toString());
            for (int k = 0; k < instructions.size(); k++) {
                JsonNode e = expected.get(k);
                Instruction i = instructions.get(k);
                String where = f + " item " + k;
                assertEquals(e.get("address").asLong(), i.address(), where);
                assertEquals(e.get("size").asInt(), i.size(), where);
                assertEquals(e.get("valid").asBoolean(), i.valid(), where);
                assertEquals(e.get("mnemonic").asText(), i.mnemonic(), where);
                String operands = e.get("operands").asText();
                assertEquals(e.get("mnemonic").asText() + (operands.isEmpty() ? "" : " " + operands), i.text(), where);
                byte[] bytes = i.bytes();
                String encoding = e.get("encoding").asText();
                if (i.mnemonic().equals(".byte")) {
                    assertArrayEquals(HexFormat.of().parseHex(encoding), bytes, where);
                } else {
                    assertEquals(Long.parseUnsignedLong(encoding, 16), i.word(), where);
                }
                assertArrayEquals(java.util.Arrays.copyOfRange(f.bytes(), (int) (i.address() - f.address()),
                        (int) (i.end() - f.address())), bytes, where);
                List<Operand.Target> targets = i.operands().stream().filter(o -> o instanceof Operand.Target)
                        .map(o -> (Operand.Target) o).toList();
                if (e.has("target")) {
                    assertEquals(List.of(new Operand.Target(e.get("target").asLong())), targets, where);
                } else {
                    assertEquals(List.of(), targets, where);
                }
                checked++;
            }
        }
        assertTrue(checked > 10_000, program + ": only " + checked + " instructions");
    }

    /** The operands print as the exact form's words, in its order; immediates are numbers. */
    @Test
    void operandsAreTheExactFormsValues() {
        Map<String, Integer> kinds = new TreeMap<>();
        for (Function f : Binary.open(TestPrograms.rv64("exceptions.relocs")).functions()) {
            if (!f.hasCode()) {
                continue;
            }
            for (Instruction i : f.instructions()) {
                int space = i.text().indexOf(' ');
                List<String> words = new ArrayList<>();
                if (i.valid() && space > 0) {
                    for (String w : i.text().substring(space + 1).split("[, ()]+")) {
                        if (!w.isEmpty()) {
                            words.add(w);
                        }
                    }
                }
                assertEquals(words.size(), i.operands().size(), i.text());
                for (int k = 0; k < words.size(); k++) {
                    Operand o = i.operands().get(k);
                    String w = words.get(k);
                    kinds.merge(o.getClass().getSimpleName(), 1, Integer::sum);
                    if (o instanceof Operand.Immediate imm) {
                        assertEquals(w.startsWith("0x") ? Long.parseUnsignedLong(w.substring(2), 16) : Long.parseLong(w),
                                imm.value(), i.text());
                    } else {
                        assertEquals(w, o.toString(), i.text());
                    }
                }
            }
        }
        assertEquals(List.of("Immediate", "Keyword", "Register", "Target"), List.copyOf(kinds.keySet()), kinds.toString());
    }

    @Test
    void controlFlowClasses() {
        Map<ControlFlow, Integer> seen = new TreeMap<>();
        for (Function f : Binary.open(TestPrograms.rv64("exceptions.relocs")).functions()) {
            if (!f.hasCode()) {
                continue;
            }
            for (Instruction i : f.instructions()) {
                seen.merge(i.controlFlow(), 1, Integer::sum);
                String m = i.mnemonic();
                String t = i.text();
                // An independent reading of the RISC-V RAS hints (ra and t0 link) from the exact text.
                boolean expected = switch (i.controlFlow()) {
                    case NONE -> !m.matches(BRANCHES) && !m.matches("jal|jalr|c\\.j|c\\.jr|c\\.jalr|ecall|ebreak|c\\.ebreak");
                    case BRANCH -> m.matches(BRANCHES);
                    case JUMP -> m.equals("c.j") || t.startsWith("jal zero, ");
                    case CALL -> m.equals("jal") && !t.startsWith("jal zero, ");
                    case RETURN -> t.matches("c\\.jr (ra|t0)|jalr zero, 0\\((ra|t0)\\)");
                    case INDIRECT_JUMP -> (m.equals("c.jr") || t.startsWith("jalr zero, "))
                            && !t.matches("c\\.jr (ra|t0)|jalr zero, 0\\((ra|t0)\\)");
                    case INDIRECT_CALL -> m.equals("c.jalr") || (m.equals("jalr") && !t.startsWith("jalr zero, "));
                    case TRAP -> m.equals("ecall") || m.equals("ebreak") || m.equals("c.ebreak");
                    case TRAP_RETURN -> false; // user code has no sret/mret
                };
                assertTrue(expected, t + " is not " + i.controlFlow());
            }
        }
        assertEquals(ControlFlow.values().length - 1, seen.size(), seen.toString()); // all but TRAP_RETURN
    }

    @Test
    void regionsAreTheListingCommandsChoice() {
        Binary binary = Binary.open(TestPrograms.rv64("loops"));
        assertEquals(List.of(".text"), binary.regions(List.of(), List.of()).stream()
                .filter(r -> r.name().equals(".text")).map(r -> r.name()).toList());
        var regions = binary.regions(List.of(".text"), List.of("hot_loop"));
        assertEquals(".text", regions.get(0).name());
        Function hot = binary.function("hot_loop").orElseThrow();
        assertEquals(hot.address(), regions.get(1).address());
        assertArrayEquals(hot.bytes(), regions.get(1).bytes());
        assertTrue(message(() -> binary.regions(List.of(), List.of("nosuch"))).endsWith(": no function named 'nosuch'"));
        assertTrue(message(() -> binary.regions(List.of(".bss"), List.of())).endsWith(
                ": section '.bss' has no contents in the file (NOBITS)"));
        assertTrue(message(() -> binary.regions(List.of(".nosuch"), List.of())).endsWith(": no section named '.nosuch'"));
        assertTrue(message(() -> Binary.open(TestPrograms.x86_64("loops"))).endsWith(": not a RISC-V ELF file"));
    }

    private static String message(Runnable r) {
        return assertThrows(BadInputException.class, r::run).getMessage();
    }
}
