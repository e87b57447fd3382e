package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.Symbol;
import dev.splice.isa.Decoder;
import dev.splice.listing.Assembler;
import dev.splice.listing.Assembly;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * The runtime fragments may call ({@value #RESOURCE}, assembled by Splice at the start of
 * {@code .splice.text}): {@code __splice_count}, {@code __splice_add}, {@code __splice_cycles},
 * {@code __splice_time}, {@code __splice_write}, {@code __splice_exit}. Its parameters (the
 * counters' size, the output file's name) are in {@value #RODATA} after the code, so the functions'
 * offsets do not depend on them and the code holds no data (which BOLT would read as code).
 */
final class SpliceRuntime {
    /** The listing's resource. */
    static final String RESOURCE = "runtime.s";
    /** The read-only section of the runtime's parameters (and data), after the code. */
    static final String RODATA = ".splice.rodata";
    /** The environment variable that overrides the output file's name at run time. */
    static final String VARIABLE = "SPLICE_COUNTER_FILE";
    /** The default output file's name. */
    static final String DEFAULT_FILE = "splice-counters.%p";
    private static final List<String> FUNCTIONS = List.of("__splice_count", "__splice_add", "__splice_cycles", "__splice_time",
            "__splice_write", "__splice_exit");
    /** The runtime's code symbols in address order: the helpers and the one they share. */
    private static final List<String> SYMBOLS = List.of("__splice_count", "__splice_add", "__splice_cycles", "__splice_time",
            "__splice_write", "__splice_path", "__splice_exit");
    private static final String TEXT = read();
    private static final Map<String, Long> LABELS = labels();
    private static final Map<String, Long> OFFSETS = offsets();
    /** The end of the runtime's code: its parameters follow. */
    private static final long CODE_END = LABELS.get("__splice_runtime_end");

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

    private static Map<String, Long> labels() {
        return assemble(0, new DataArea(0x1000_0000L, 0, 0), 0x1000_0008L, 0x1000_1000L).labels();
    }

    private static Map<String, Long> offsets() {
        Map<String, Long> out = new HashMap<>();
        for (String f : FUNCTIONS) {
            out.put(f, LABELS.get(f));
        }
        return Map.copyOf(out);
    }

    /** {@return the helpers' offsets from the runtime's start, by name} */
    static Map<String, Long> functions() {
        return OFFSETS;
    }

    /**
     * The runtime's code at {@code address}: {@code environ} is the address of the program's
     * {@code environ} pointer (or of a zero word), {@code parameters} the address of its read-only
     * parameters ({@link #parameters}).
     */
    static byte[] bytes(long address, DataArea data, long environ, long parameters) {
        return assemble(address, data, environ, parameters).bytes();
    }

    /** {@return the runtime's code size} */
    static int size() {
        return Math.toIntExact(CODE_END);
    }

    /**
     * The runtime's read-only parameters, for {@code .splice.rodata}: the number of bytes of
     * {@code counters} slots {@code __splice_exit} writes, the variable's name, and {@code file}, the
     * default output file's name.
     */
    static byte[] parameters(int counters, String file) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        byte[] size = new byte[8];
        dev.splice.base.Le.putU64(size, 0, 8L * counters);
        out.writeBytes(size);
        out.writeBytes((VARIABLE + "=").getBytes(StandardCharsets.UTF_8));
        out.write(0);
        out.writeBytes(file.getBytes(StandardCharsets.UTF_8));
        out.write(0);
        return out.toByteArray();
    }

    /**
     * The placement-dependent words of the runtime's code in {@code bytes} (as {@link #bytes}
     * made them at {@code address}) and its symbols ({@code named}, from {@link #addSymbols}), for
     * the output's relocations.
     *
     * @param bytes the runtime's bytes
     * @param address where they are
     * @param decoder a decoder of the output's instructions
     * @param named the runtime's symbols by address
     * @return what the output's relocations need
     */
    static RuntimeSymbols relocations(byte[] bytes, long address, Decoder decoder, NavigableMap<Long, long[]> named) {
        return new RuntimeSymbols(RuntimeCodeWords.read(bytes, Math.toIntExact(CODE_END), address, decoder), named);
    }

    /**
     * Adds to {@code named} the program's data object at {@code address} the runtime refers to (its
     * {@code environ} pointer), so that the relocation names it: BOLT 22 misreads a pc-relative
     * pair against a section symbol plus an addend.
     *
     * @param named the runtime's symbols by address, from {@link #addSymbols}
     * @param elf the input
     * @param address the object's address
     */
    static void nameProgramObject(NavigableMap<Long, long[]> named, dev.splice.elf.ElfFile elf, long address) {
        for (Symbol s : elf.symbols()) {
            if (s.value() == address && s.type() == Symbol.STT_OBJECT && s.size() > 0 && s.isDefinedInSection()) {
                named.put(address, new long[] {address + s.size(), s.index()});
                return;
            }
        }
    }

    private static Assembly assemble(long address, DataArea data, long environ, long parameters) {
        Map<String, Long> externals = new HashMap<>(data.symbols());
        externals.put("__splice_environ", environ);
        externals.put("__splice_param_bytes", parameters);
        externals.put("__splice_param_variable", parameters + 8);
        externals.put("__splice_param_path", parameters + 8 + VARIABLE.length() + 2);
        return Assembler.assemble(TEXT, RESOURCE, address, externals);
    }

    /**
     * Names the runtime's functions (at {@code address}, in section {@code textIndex}, each with its
     * size), its parameters ({@code __splice_params}, {@code parametersSize} bytes at {@code parameters}
     * in section {@code rodataIndex}), its
     * scratch ({@code __splice_runtime_data}) and the counters ({@code __splice_counters},
     * {@code slots} of them) in the output's {@code .symtab}, for objdump, debuggers, BOLT and tools
     * that read the counters.
     *
     * @return the symbols by start address: {end, index} (empty without a {@code .symtab})
     */
    static NavigableMap<Long, long[]> addSymbols(ElfEditor editor, long address, int textIndex, long parameters, int parametersSize,
                                                 int rodataIndex, DataArea data, int slots) {
        NavigableMap<Long, long[]> named = new TreeMap<>();
        editor.section(".symtab").ifPresent(symtab -> {
            for (int i = 0; i < SYMBOLS.size(); i++) {
                String f = SYMBOLS.get(i);
                long start = LABELS.get(f);
                long end = i + 1 < SYMBOLS.size() ? LABELS.get(SYMBOLS.get(i + 1)) : CODE_END;
                named.put(address + start, new long[] {address + end, editor.addSymbol(symtab.index(), new Symbol(0, f,
                        address + start, end - start, Symbol.STT_FUNC, Symbol.STB_GLOBAL, Symbol.STV_DEFAULT, textIndex))});
            }
            named.put(parameters, new long[] {parameters + parametersSize, editor.addSymbol(symtab.index(), new Symbol(0,
                    "__splice_params", parameters, parametersSize, Symbol.STT_OBJECT, Symbol.STB_GLOBAL, Symbol.STV_HIDDEN,
                    rodataIndex))});
            editor.section(DataArea.NAME).ifPresent(bss -> {
                named.put(data.runtimeData(), new long[] {data.counters(), editor.addSymbol(symtab.index(), new Symbol(0,
                        "__splice_runtime_data", data.runtimeData(), DataArea.SCRATCH, Symbol.STT_OBJECT, Symbol.STB_GLOBAL,
                        Symbol.STV_HIDDEN, bss.index()))});
                named.put(data.counters(), new long[] {data.counter(slots), editor.addSymbol(symtab.index(), new Symbol(0,
                        "__splice_counters", data.counters(), 8L * slots, Symbol.STT_OBJECT, Symbol.STB_GLOBAL, Symbol.STV_DEFAULT,
                        bss.index()))});
            });
        });
        return named;
    }

}
