package dev.splice.patch;

import dev.splice.base.Le;
import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Symbol;
import dev.splice.isa.Decoder;
import dev.splice.listing.Assembler;
import dev.splice.listing.Assembly;
import java.io.ByteArrayOutputStream;
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
 * The runtime fragments may call, at the start of {@code .splice.text}: the shipped helpers
 * ({@value #RESOURCE}, assembled by Splice: {@code __splice_count}, {@code __splice_add},
 * {@code __splice_cycles}, {@code __splice_time}, {@code __splice_write}, {@code __splice_exit}),
 * then the code of a user's runtime object when there is one ({@link RuntimeObject},
 * {@code --runtime FILE.o}). The shipped runtime's parameters (the counters' size, the output
 * file's name) and the object's read-only data are in {@value #RODATA} after the code, so the
 * functions' offsets do not depend on them and the code holds no data (which BOLT would read as
 * code); the object's zero data follows the counters in the data area.
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
    /** The shipped runtime's code symbols in address order: the helpers and those they share. */
    private static final List<String> SYMBOLS = List.of("__splice_count", "__splice_add", "__splice_cycles", "__splice_time",
            "__splice_write", "__splice_path", "__splice_exit", "__splice_call_user_exit", "__splice_no_user_exit");
    private static final String TEXT = read();
    private static final Map<String, Long> LABELS = labels();
    /** The end of the shipped runtime's code. */
    private static final long CODE_END = LABELS.get("__splice_runtime_end");

    private final RuntimeObject user;
    private final Map<String, Long> functions;

    /**
     * The runtime of one rewrite.
     *
     * @param user the user's runtime object, or null
     */
    SpliceRuntime(RuntimeObject user) {
        this.user = user;
        Map<String, Long> out = new HashMap<>();
        for (String f : FUNCTIONS) {
            out.put(f, LABELS.get(f));
        }
        if (user != null) {
            for (Map.Entry<String, Long> e : user.functions().entrySet()) {
                if (LABELS.containsKey(e.getKey()) || e.getKey().startsWith("__splice_") && !e.getKey().equals(RuntimeObject.EXIT_FUNCTION)) {
                    throw new PatchException(PatchException.Reason.UNSUPPORTED_RELOCATION, user.file() + ": defines '"
                            + e.getKey() + "', a name of the shipped runtime's (names starting __splice_ are reserved)");
                }
                out.put(e.getKey(), userStart() + e.getValue());
            }
        }
        this.functions = Map.copyOf(out);
    }

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
        return assemble(0, new DataArea(0x1000_0000L, 0, 0), 0x1000_0008L, 0x1000_1000L, 0).labels();
    }

    /** {@return whether a user's runtime object is linked} */
    boolean hasObject() {
        return user != null;
    }

    /** {@return whether a runtime object defines the exit function {@value RuntimeObject#EXIT_FUNCTION}} */
    boolean hasExitFunction() {
        return functions.containsKey(RuntimeObject.EXIT_FUNCTION);
    }

    /** {@return the functions fragments may call: their offsets from the runtime's start, by name} */
    Map<String, Long> functions() {
        return functions;
    }

    /** {@return the offset of the object's code from the runtime's start} */
    private long userStart() {
        return (CODE_END + user.alignment() - 1) / user.alignment() * user.alignment();
    }

    /** {@return the runtime's code size} */
    int size() {
        return Math.toIntExact(user == null ? CODE_END : userStart() + user.codeSize());
    }

    /** {@return an upper bound of the bytes the runtime's relocations add to {@code .rela.splice.text}} */
    long relocationReserve() {
        return (CODE_END / 4 + (user == null ? 0 : user.relocationCount())) * dev.splice.elf.Relocation.ENTRY_SIZE;
    }

    /** {@return the alignment the read-only data needs} */
    long rodataAlignment() {
        return user == null ? 8 : Math.max(8, user.alignment());
    }

    /** {@return the data area's size with the runtime, {@code slots} counters and the object's zero data} */
    long dataSize(DataArea data, int slots) {
        return user == null ? data.sizeWith(true, slots) : userData(data, slots) + user.bssSize() - data.address();
    }

    /** The object's zero data: after the counters, on a cache line of its own. */
    private static long userData(DataArea data, int slots) {
        return (data.counter(slots) + DataArea.ALIGNMENT - 1) & -DataArea.ALIGNMENT;
    }

    /**
     * The runtime linked.
     *
     * @param code its code (for the start of {@code .splice.text})
     * @param rodata its read-only data (for {@value #RODATA})
     * @param objectReferences the placement-dependent words of the object's code
     */
    record Image(byte[] code, byte[] rodata, List<RuntimeReference> objectReferences) {}

    /**
     * Links the runtime at {@code address} with its read-only data at {@code rodata}:
     * {@code environ} is the address of the program's {@code environ} pointer (or of a zero word),
     * {@code slots} the number of counter slots {@code __splice_exit} writes, {@code file} the default
     * output file's name, {@code binary} the program's symbols (for the object's undefined names).
     *
     * @return the bytes
     */
    Image link(long address, long rodata, DataArea data, long environ, int slots, String file, Map<String, Long> binary) {
        byte[] parameters = parameters(slots, file);
        byte[] code = new byte[size()];
        byte[] readOnly = parameters;
        List<RuntimeReference> references = List.of();
        long exit = address + LABELS.get("__splice_no_user_exit");
        if (user != null) {
            long userRodata = (rodata + parameters.length + user.alignment() - 1) / user.alignment() * user.alignment();
            Map<String, Long> shipped = new HashMap<>(data.symbols());
            functions.forEach((name, offset) -> shipped.put(name, address + offset));
            RuntimeObject.Linked linked = user.link(address + userStart(), userRodata, userData(data, slots),
                    name -> shipped.containsKey(name) ? shipped.get(name) : binary.get(name));
            System.arraycopy(linked.code(), 0, code, (int) userStart(), linked.code().length);
            readOnly = new byte[(int) (userRodata - rodata) + linked.rodata().length];
            System.arraycopy(parameters, 0, readOnly, 0, parameters.length);
            System.arraycopy(linked.rodata(), 0, readOnly, (int) (userRodata - rodata), linked.rodata().length);
            references = linked.references();
            Long userExit = functions.get(RuntimeObject.EXIT_FUNCTION);
            if (userExit != null) {
                exit = address + userExit;
            }
        }
        byte[] shippedCode = assemble(address, data, environ, rodata, exit).bytes();
        System.arraycopy(shippedCode, 0, code, 0, shippedCode.length);
        return new Image(code, readOnly, references);
    }

    /**
     * The shipped runtime's read-only parameters: the number of bytes of {@code counters} slots
     * {@code __splice_exit} writes, the variable's name, and {@code file}, the default output
     * file's name.
     */
    private static byte[] parameters(int counters, String file) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] size = new byte[8];
        Le.putU64(size, 0, 8L * counters);
        out.writeBytes(size);
        out.writeBytes((VARIABLE + "=").getBytes(StandardCharsets.UTF_8));
        out.write(0);
        out.writeBytes(file.getBytes(StandardCharsets.UTF_8));
        out.write(0);
        return out.toByteArray();
    }

    private static Assembly assemble(long address, DataArea data, long environ, long parameters, long userExit) {
        Map<String, Long> externals = new HashMap<>(data.symbols());
        externals.put("__splice_environ", environ);
        externals.put("__splice_param_bytes", parameters);
        externals.put("__splice_param_variable", parameters + 8);
        externals.put("__splice_param_path", parameters + 8 + VARIABLE.length() + 2);
        externals.put(RuntimeObject.EXIT_FUNCTION, userExit);
        return Assembler.assemble(TEXT, RESOURCE, address, externals);
    }

    /**
     * What the output's relocations need of the runtime linked as {@code image} at {@code address}:
     * the placement-dependent words of the shipped code (read back from {@code text}) and of the
     * object's, and the runtime's symbols ({@code named}, from {@link #addSymbols}).
     *
     * @param image the linked runtime
     * @param address where it is
     * @param decoder a decoder of the output's instructions
     * @param named the runtime's symbols by address
     * @return what the output's relocations need
     */
    static RuntimeSymbols relocations(Image image, long address, Decoder decoder, NavigableMap<Long, long[]> named) {
        List<RuntimeReference> references = new ArrayList<>(RuntimeCodeWords.read(image.code(), Math.toIntExact(CODE_END), address,
                decoder));
        references.addAll(image.objectReferences());
        return new RuntimeSymbols(references, named);
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
    static void nameProgramObject(NavigableMap<Long, long[]> named, ElfFile elf, long address) {
        for (Symbol s : elf.symbols()) {
            if (s.value() == address && s.type() == Symbol.STT_OBJECT && s.size() > 0 && s.isDefinedInSection()) {
                named.put(address, new long[] {address + s.size(), s.index()});
                return;
            }
        }
    }

    /**
     * Names the runtime's functions (at {@code address}, in section {@code textIndex}, each with its
     * size; each of the object's global functions reaching to the next, and its local code before
     * the first as {@code __splice_object_code}, since BOLT needs every byte of code in a function),
     * its read-only data ({@code __splice_params}, {@code rodataSize} bytes at
     * {@code rodata} in section {@code rodataIndex}), its scratch ({@code __splice_runtime_data})
     * and the counters ({@code __splice_counters}, {@code slots} of them) in the output's
     * {@code .symtab}, for objdump, debuggers, BOLT and tools that read the counters.
     *
     * @return the symbols by start address: {end, index} (empty without a {@code .symtab})
     */
    NavigableMap<Long, long[]> addSymbols(ElfEditor editor, long address, int textIndex, long rodata, int rodataSize,
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
            if (user != null) {
                List<Map.Entry<String, Long>> own = new ArrayList<>(functions.entrySet());
                own.removeIf(e -> FUNCTIONS.contains(e.getKey()));
                own.sort(Map.Entry.comparingByValue());
                long first = own.isEmpty() ? size() : own.get(0).getValue();
                if (first > userStart()) { // the object's local code before its first global function
                    named.put(address + userStart(), new long[] {address + first, editor.addSymbol(symtab.index(), new Symbol(0,
                            "__splice_object_code", address + userStart(), first - userStart(), Symbol.STT_FUNC,
                            Symbol.STB_GLOBAL, Symbol.STV_HIDDEN, textIndex))});
                }
                for (int i = 0; i < own.size(); i++) {
                    long start = own.get(i).getValue();
                    long end = i + 1 < own.size() ? own.get(i + 1).getValue() : size();
                    named.put(address + start, new long[] {address + end, editor.addSymbol(symtab.index(), new Symbol(0,
                            own.get(i).getKey(), address + start, end - start, Symbol.STT_FUNC, Symbol.STB_GLOBAL,
                            Symbol.STV_DEFAULT, textIndex))});
                }
            }
            named.put(rodata, new long[] {rodata + rodataSize, editor.addSymbol(symtab.index(), new Symbol(0,
                    "__splice_params", rodata, rodataSize, Symbol.STT_OBJECT, Symbol.STB_GLOBAL, Symbol.STV_HIDDEN,
                    rodataIndex))});
            editor.section(DataArea.NAME).ifPresent(bss -> {
                named.put(data.runtimeData(), new long[] {data.counters(), editor.addSymbol(symtab.index(), new Symbol(0,
                        "__splice_runtime_data", data.runtimeData(), DataArea.SCRATCH, Symbol.STT_OBJECT, Symbol.STB_GLOBAL,
                        Symbol.STV_HIDDEN, bss.index()))});
                named.put(data.counters(), new long[] {data.counter(slots), editor.addSymbol(symtab.index(), new Symbol(0,
                        "__splice_counters", data.counters(), 8L * slots, Symbol.STT_OBJECT, Symbol.STB_GLOBAL, Symbol.STV_DEFAULT,
                        bss.index()))});
                if (user != null && user.bssSize() > 0) {
                    long at = userData(data, slots);
                    named.put(at, new long[] {at + user.bssSize(), editor.addSymbol(symtab.index(), new Symbol(0,
                            "__splice_object_data", at, user.bssSize(), Symbol.STT_OBJECT, Symbol.STB_GLOBAL, Symbol.STV_HIDDEN,
                            bss.index()))});
                }
            });
        });
        return named;
    }
}
