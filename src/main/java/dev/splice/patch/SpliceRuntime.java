package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.Symbol;
import dev.splice.listing.Assembler;
import dev.splice.listing.Assembly;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The runtime fragments may call ({@value #RESOURCE}, assembled by Splice at the start of
 * {@code .splice.text}): {@code __splice_count}, {@code __splice_add}, {@code __splice_cycles},
 * {@code __splice_time}, {@code __splice_write}, {@code __splice_exit}. Its parameters (the
 * counters' size, the output file's name) follow its code, so the functions' offsets do not depend
 * on them.
 */
final class SpliceRuntime {
    /** The listing's resource. */
    static final String RESOURCE = "runtime.s";
    /** The environment variable that overrides the output file's name at run time. */
    static final String VARIABLE = "SPLICE_COUNTER_FILE";
    /** The default output file's name. */
    static final String DEFAULT_FILE = "splice-counters.%p";
    private static final List<String> FUNCTIONS = List.of("__splice_count", "__splice_add", "__splice_cycles", "__splice_time",
            "__splice_write", "__splice_exit");
    private static final String TEXT = read();
    private static final Map<String, Long> OFFSETS = offsets();

    private SpliceRuntime() {}

    private static String read() {
        try (InputStream in = SpliceRuntime.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " is missing");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Map<String, Long> offsets() {
        Assembly a = assemble(0, new DataArea(0x1000_0000L, 0, 0), 0x1000_0008L, 0, DEFAULT_FILE);
        Map<String, Long> out = new HashMap<>();
        for (String f : FUNCTIONS) {
            out.put(f, a.labels().get(f));
        }
        return Map.copyOf(out);
    }

    /** {@return the helpers' offsets from the runtime's start, by name} */
    static Map<String, Long> functions() {
        return OFFSETS;
    }

    /**
     * The runtime's bytes at {@code address}: {@code environ} is the address of the program's
     * {@code environ} pointer (or of a zero word), {@code counters} the number of counter slots
     * {@code __splice_exit} writes, {@code file} the default output file's name.
     */
    static byte[] bytes(long address, DataArea data, long environ, int counters, String file) {
        return assemble(address, data, environ, counters, file).bytes();
    }

    private static Assembly assemble(long address, DataArea data, long environ, int counters, String file) {
        StringBuilder text = new StringBuilder(TEXT);
        text.append("__splice_param_bytes:\n    .dword ").append(8L * counters).append('\n');
        text.append("__splice_param_variable:\n");
        bytes(text, VARIABLE + "=");
        text.append("__splice_param_path:\n");
        bytes(text, file);
        Map<String, Long> externals = new HashMap<>(data.symbols());
        externals.put("__splice_environ", environ);
        return Assembler.assemble(text.toString(), RESOURCE, address, externals);
    }

    /**
     * Names the runtime's functions (at {@code address}, in section {@code textIndex}) and the
     * counters ({@code __splice_counters}, {@code slots} of them) in the output's {@code .symtab},
     * for objdump, debuggers and tools that read the counters.
     */
    static void addSymbols(ElfEditor editor, long address, int textIndex, DataArea data, int slots) {
        editor.section(".symtab").ifPresent(symtab -> {
            for (String f : FUNCTIONS) {
                editor.addSymbol(symtab.index(), new Symbol(0, f, address + OFFSETS.get(f), 0, Symbol.STT_FUNC, Symbol.STB_GLOBAL,
                        Symbol.STV_DEFAULT, textIndex));
            }
            editor.section(DataArea.NAME).ifPresent(bss -> editor.addSymbol(symtab.index(), new Symbol(0, "__splice_counters",
                    data.counters(), 8L * slots, Symbol.STT_OBJECT, Symbol.STB_GLOBAL, Symbol.STV_DEFAULT, bss.index())));
        });
    }

    private static void bytes(StringBuilder text, String s) {
        text.append("    .byte ");
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            text.append(b & 0xff).append(", ");
        }
        text.append("0\n");
    }
}
