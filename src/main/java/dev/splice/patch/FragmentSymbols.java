package dev.splice.patch;

import dev.splice.elf.ElfFile;
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
    private final long reserved;
    private final int maxSlots;
    private final SpliceRuntime runtime;
    private DataArea data;
    private Map<String, Long> binary;
    private boolean runtimeUsed;

    /**
     * {@code reserved}: the bytes at the data area's start that {@link Rewrite#reserveData} asked for;
     * {@code maxSlots}: the most counter slots a rewrite with these symbols asks for (a bound of the data
     * area's size, which its address may depend on); {@code runtime}: the runtime of this rewrite (the
     * shipped one, and a runtime object's functions).
     */
    FragmentSymbols(ElfFile elf, java.util.Collection<Long> functionStarts, long reserved, int maxSlots, SpliceRuntime runtime) {
        this.elf = elf;
        this.functionStarts = functionStarts;
        this.reserved = reserved;
        this.maxSlots = maxSlots;
        this.runtime = runtime;
    }

    /** {@return the runtime of this rewrite} */
    SpliceRuntime runtime() {
        return runtime;
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

    /** {@return the data area, its address (which depends on the input only) found on first use} */
    DataArea data() {
        if (data == null) {
            data = new DataArea(DataArea.addressFor(elf.edit(), maxDataSize()), 0, reserved);
        }
        return data;
    }

    /** {@return the most bytes the data area of a rewrite with these symbols holds} (its size does not depend on its address) */
    long maxDataSize() {
        return Math.max(reserved, runtime.dataSize(new DataArea(0, 0, reserved), maxSlots));
    }

    /** {@return the address of the program's environ pointer (glibc's __environ), or of a zero word in the data area} */
    long environ() {
        for (String name : new String[] {"__environ", "environ"}) {
            Long a = binary().get(name);
            if (a != null) {
                return a;
            }
        }
        return data().runtimeData() + 8;
    }

    /** {@return whether a fragment named one of the runtime's symbols, or a runtime object is linked} */
    boolean runtimeUsed() {
        return runtimeUsed || runtime.hasObject();
    }

    /** Whether a call target (at the reference values, following the {@link Variable} bits {@code depends}) is a function's entry. */
    boolean isKnownFunction(long target, int depends) {
        if (depends == 0) {
            return functionStarts.contains(target);
        }
        return depends == Variable.RUNTIME.bit && runtime.functions().containsValue(target - runtimeReference());
    }

    /**
     * The {@link Variable#bit}s a value named {@code symbol} (as an assembler fixup names it: null for
     * an absolute address, {@code "."} for the fragment itself) follows.
     */
    int depends(String symbol) {
        if (symbol == null) {
            return 0;
        }
        if (symbol.equals(dev.splice.listing.Fixup.REGION)) {
            return Variable.ADDRESS.bit;
        }
        for (Field f : Field.values()) {
            if (f != Field.FUNC && symbol.equals(f.symbol())) {
                return Variable.valueOf(f.name()).bit;
            }
        }
        return runtime.functions().containsKey(symbol) ? Variable.RUNTIME.bit : 0;
    }

    /** The value {@code symbol} had when fragments were assembled (see {@link #depends}). */
    long referenceValue(String symbol) {
        if (symbol == null) {
            return 0;
        }
        if (symbol.equals(dev.splice.listing.Fixup.REGION)) {
            return reference();
        }
        Long v = externals(Map.of()).get(symbol);
        if (v == null) {
            throw new IllegalStateException("the assembler used '" + symbol + "', which has no value");
        }
        return v;
    }

    /** The names for the assembler, with the variables in {@code moved} moved by their value. */
    Map<String, Long> externals(Map<Variable, Long> moved) {
        return new AbstractMap<>() {
            @Override
            public Long get(Object key) {
                String name = (String) key;
                Long own = runtime.hasObject() ? runtime.functions().get(name) : null;
                if (own != null) {
                    runtimeUsed = true;
                    return runtimeReference() + moved.getOrDefault(Variable.RUNTIME, 0L) + own;
                }
                if (name.startsWith("__splice_")) {
                    for (Field f : Field.values()) {
                        if (f != Field.FUNC && name.equals(f.symbol())) {
                            return reference() + moved.getOrDefault(Variable.valueOf(f.name()), 0L);
                        }
                    }
                    Long data = data().symbols().get(name);
                    Long code = runtime.functions().get(name);
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
