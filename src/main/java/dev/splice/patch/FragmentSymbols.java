package dev.splice.patch;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Segment;
import dev.splice.elf.Symbol;
import dev.splice.patch.FragmentCode.Variable;
import dev.splice.patch.FragmentTemplate.Field;
import java.util.AbstractMap;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The names a fragment may use besides its own labels: the binary's symbols (functions and data,
 * by unique name; a global wins over locals of the same name), the runtime's functions and data
 * ({@link SpliceRuntime}, {@link DataArea}), and the template fields as symbols. Fragments are
 * assembled against reference values (at address 0); {@link FragmentCode} moves
 * what depends on them.
 */
final class FragmentSymbols {
    private final ElfFile elf;
    private final java.util.Collection<Long> functionStarts;
    private final DataArea data;
    private Map<String, Long> binary;
    private boolean runtimeUsed;

    FragmentSymbols(ElfFile elf, java.util.Collection<Long> functionStarts) {
        this.elf = elf;
        this.functionStarts = functionStarts;
        this.data = new DataArea(codeAddress(elf) + DataArea.DISTANCE);
    }

    /** Above everything loaded and the file's end, 2 MiB aligned: about where the new code goes. */
    private static long codeAddress(ElfFile elf) {
        long end = 0;
        long base = Long.MAX_VALUE;
        for (Segment s : elf.segments()) {
            if (s.isLoad()) {
                end = Math.max(end, s.virtualAddress() + s.memorySize());
                base = Math.min(base, s.virtualAddress() - s.offset());
            }
        }
        end = Math.max(end, (base == Long.MAX_VALUE ? 0 : base) + elf.length());
        return (end + 0x1fffff) & -0x200000L;
    }

    /**
     * {@return the address the fragments are assembled at, and the reference value of the fields}
     * 0: from there a numeric target is the offset a fragment's author had in mind, and the
     * binary's symbols, the runtime and the data area are all within reach of an auipc pair.
     */
    long reference() {
        return 0;
    }

    /** {@return the runtime's address when fragments are assembled} */
    long runtimeReference() {
        return 0x10000;
    }

    /** {@return the data area (its address depends on the input only)} */
    DataArea data() {
        return data;
    }

    /** {@return the address of the program's environ pointer (glibc's __environ), or of a zero word in the data area} */
    long environ() {
        for (String name : new String[] {"__environ", "environ"}) {
            Long a = binary().get(name);
            if (a != null) {
                return a;
            }
        }
        return data.address() + 8;
    }

    /** {@return whether a fragment named one of the runtime's symbols} */
    boolean runtimeUsed() {
        return runtimeUsed;
    }

    /** Whether a call target (at the reference values, following the {@link Variable} bits {@code depends}) is a function's entry. */
    boolean isKnownFunction(long target, int depends) {
        if (depends == 0) {
            return functionStarts.contains(target);
        }
        return depends == Variable.RUNTIME.bit && SpliceRuntime.functions().containsValue(target - runtimeReference());
    }

    /** The names for the assembler, with the variables in {@code moved} moved by their value. */
    Map<String, Long> externals(Map<Variable, Long> moved) {
        return new AbstractMap<>() {
            @Override
            public Long get(Object key) {
                String name = (String) key;
                if (name.startsWith("__splice_")) {
                    for (Field f : Field.values()) {
                        if (f != Field.FUNC && name.equals(f.symbol())) {
                            return reference() + moved.getOrDefault(Variable.valueOf(f.name()), 0L);
                        }
                    }
                    Long data = FragmentSymbols.this.data.symbols().get(name);
                    Long code = SpliceRuntime.functions().get(name);
                    if (data != null || code != null) {
                        runtimeUsed = true;
                        return data != null ? data : runtimeReference() + moved.getOrDefault(Variable.RUNTIME, 0L) + code;
                    }
                }
                return binary().get(name);
            }

            @Override
            public Set<Entry<String, Long>> entrySet() {
                return Set.of(); // the assembler only looks names up
            }
        };
    }

    /** The binary's symbols by name, made on the first lookup (most fragments name none). */
    Map<String, Long> binary() {
        if (binary == null) {
            Map<String, Long> out = new HashMap<>();
            Map<String, Boolean> global = new HashMap<>();
            for (Symbol s : elf.symbols()) {
                int type = s.type();
                if (s.name().isEmpty() || !s.isDefinedInSection()
                        || type != Symbol.STT_FUNC && type != Symbol.STT_OBJECT && type != Symbol.STT_NOTYPE) {
                    continue;
                }
                boolean isGlobal = !s.isLocal();
                Boolean known = global.get(s.name());
                if (known == null || isGlobal && !known) {
                    out.put(s.name(), s.value());
                    global.put(s.name(), isGlobal);
                } else if (known == isGlobal && !Objects.equals(out.get(s.name()), s.value())) {
                    out.put(s.name(), null); // ambiguous: not offered
                }
            }
            binary = out;
        }
        return binary;
    }
}
