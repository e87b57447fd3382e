package dev.splice.elf;

import dev.splice.base.BadInputException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Resolves {@code SYMBOL+OFFSET}, the form listings print, to an address of a binary: a function
 * symbol of that name first, else any symbol defined in a section.
 */
public final class SymbolAddress {
    private SymbolAddress() {}

    /** The name stands for several different addresses; the message lists them. */
    public static final class AmbiguousSymbolException extends BadInputException {
        private static final long serialVersionUID = 1L;

        AmbiguousSymbolException(String message) {
            super(message);
        }
    }

    /**
     * The address {@code offset} bytes after the symbol's value.
     *
     * @param elf the binary
     * @param symbol the symbol's name
     * @param offset bytes after its value (within the function when the symbol is a sized function)
     * @param what what the address was written as, for messages ("point spec 'main+8'")
     * @return the address
     * @throws AmbiguousSymbolException when the name has several values
     * @throws BadInputException when no symbol has the name or the offset lies past a function's end
     */
    public static long resolve(ElfFile elf, String symbol, long offset, String what) {
        List<Symbol> functions = new ArrayList<>();
        List<Symbol> others = new ArrayList<>();
        for (Symbol sym : elf.symbols()) {
            if (sym.name().equals(symbol) && sym.isDefinedInSection()) {
                (sym.isFunction() ? functions : others).add(sym);
            }
        }
        List<Symbol> named = functions.isEmpty() ? others : functions;
        if (named.isEmpty()) {
            throw new BadInputException(what + ": " + elf.name() + " has no symbol named '" + symbol + "'");
        }
        long[] values = named.stream().mapToLong(Symbol::value).distinct().toArray();
        if (values.length > 1) {
            throw new AmbiguousSymbolException(what + ": '" + symbol + "' names " + values.length + " symbols (at "
                    + Arrays.stream(values).mapToObj(v -> "0x" + Long.toHexString(v)).toList() + "); give the address instead");
        }
        Symbol sym = named.get(0);
        if (sym.isFunction() && sym.size() > 0 && Long.compareUnsigned(offset, sym.size()) >= 0) {
            throw new BadInputException(what + ": offset 0x" + Long.toHexString(offset) + " lies past the end of function '"
                    + symbol + "' (" + sym.size() + " bytes)");
        }
        return sym.value() + offset;
    }
}
