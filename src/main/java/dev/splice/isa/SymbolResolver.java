package dev.splice.isa;

/** Resolves a symbol name used as a pc-relative target to an absolute address. */
@FunctionalInterface
public interface SymbolResolver {
    /**
     * The address of a symbol.
     *
     * @param name the symbol's name
     * @return its address
     * @throws OperandException if the symbol is unknown
     */
    long resolve(String name) throws OperandException;

    /** Knows no symbols. */
    SymbolResolver NONE = name -> {
        throw new OperandException("unknown symbol '" + name + "'", -1);
    };
}
