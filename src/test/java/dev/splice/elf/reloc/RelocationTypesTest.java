package dev.splice.elf.reloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The relocation types agree with glibc's {@code <elf.h>} (an independent copy of the psABI
 * tables): every type it defines has the same number and name here, and every constant here is
 * named as its {@code name} says.
 */
class RelocationTypesTest {
    private static final Path ELF_H = Path.of("/usr/include/elf.h");

    @Test
    void riscVTypesAreThoseOfElfH() throws IOException {
        // glibc still has binutils' old names for 41 and 42; the psABI now names 41 R_RISCV_GOT32_PCREL, 42 is reserved.
        Map<Integer, String> expected = defines("R_RISCV_", Set.of(41, 42));
        check(RiscVRelocations.class, "R_RISCV_", expected, RiscVRelocations::name);
        assertEquals("R_RISCV_GOT32_PCREL", RiscVRelocations.name(41));
        assertEquals("relocation type 42", RiscVRelocations.name(42));
    }

    @Test
    void x86TypesAreThoseOfElfH() throws IOException {
        check(X86Relocations.class, "R_X86_64_", defines("R_X86_64_", Set.of()), X86Relocations::name);
    }

    private static void check(Class<?> table, String prefix, Map<Integer, String> expected,
                              java.util.function.IntFunction<String> name) {
        assertTrue(expected.size() > 40, "too few types in " + ELF_H + ": " + expected);
        Map<Integer, String> constants = constants(table, prefix);
        for (Map.Entry<Integer, String> e : expected.entrySet()) {
            assertEquals(e.getValue(), constants.get(e.getKey()), "type " + e.getKey());
        }
        for (Map.Entry<Integer, String> e : constants.entrySet()) {
            assertEquals(e.getValue(), name.apply(e.getKey()), "name of type " + e.getKey());
        }
        assertEquals("relocation type 1000", name.apply(1000));
    }

    /** The table's constants: value -> field name (each value once). */
    private static Map<Integer, String> constants(Class<?> table, String prefix) {
        Map<Integer, String> out = new HashMap<>();
        for (Field f : table.getFields()) {
            if (Modifier.isStatic(f.getModifiers()) && f.getName().startsWith(prefix)) {
                try {
                    String before = out.put(f.getInt(null), f.getName());
                    assertEquals(null, before, f.getName() + " repeats the number of " + before);
                } catch (IllegalAccessException e) {
                    throw new AssertionError(e);
                }
            }
        }
        return out;
    }

    /** {@code #define PREFIXname number} lines of elf.h, without PREFIXNUM and the numbers left out. */
    private static Map<Integer, String> defines(String prefix, Set<Integer> leftOut) throws IOException {
        assertTrue(Files.exists(ELF_H), ELF_H + " is missing: install libc6-dev (make deps does)");
        Matcher m = Pattern.compile("^#define\\s+(" + prefix + "\\w+)\\s+(\\d+)", Pattern.MULTILINE)
                .matcher(Files.readString(ELF_H));
        Map<Integer, String> out = new HashMap<>();
        while (m.find()) {
            int number = Integer.parseInt(m.group(2));
            if (!m.group(1).equals(prefix + "NUM") && !leftOut.contains(number)) {
                out.put(number, m.group(1));
            }
        }
        return out;
    }
}
