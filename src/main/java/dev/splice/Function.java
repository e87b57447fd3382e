package dev.splice;

import dev.splice.base.BadInputException;
import dev.splice.elf.Section;
import dev.splice.listing.Region;
import java.util.List;

/**
 * A function of a {@link Binary}: a FUNC symbol defined in a section, with its code.
 * {@link Binary#functions()} lists them; aliases (two names for the same address and size) appear
 * once.
 */
public final class Function {
    private final Binary binary;
    private final dev.splice.elf.Function symbol;

    Function(Binary binary, dev.splice.elf.Function symbol) {
        this.binary = binary;
        this.symbol = symbol;
    }

    /**
     * The symbol's name.
     *
     * @return the name, as in the symbol table
     */
    public String name() {
        return symbol.name();
    }

    /**
     * The address of the first instruction.
     *
     * @return the address
     */
    public long address() {
        return symbol.address();
    }

    /**
     * The size the symbol table gives.
     *
     * @return the size in bytes (0 for symbols without a size)
     */
    public long size() {
        return symbol.size();
    }

    /**
     * The section that holds the function.
     *
     * @return the section the symbol is defined in
     */
    public Section section() {
        return symbol.section();
    }

    /**
     * Whether the function has code to list: a size above 0 in an executable section.
     *
     * @return true when {@link #instructions()} has something to decode
     */
    public boolean hasCode() {
        return symbol.size() > 0 && symbol.section() != null && symbol.section().isExecutable();
    }

    /**
     * The function's bytes, checked to lie inside its section.
     *
     * @return a copy of the bytes
     * @throws BadInputException when the section has no contents in the file or the function does
     *     not lie inside it
     */
    public byte[] bytes() {
        return region().bytes();
    }

    /**
     * Decodes the function's bytes, one item per instruction.
     *
     * @return the instructions in address order (unknown words and loose bytes included, marked
     *     not valid)
     * @throws BadInputException as {@link #bytes()}
     */
    public List<Instruction> instructions() {
        return Disassembler.instructions(bytes(), address());
    }

    /**
     * The function as a region for the listing writers ({@code dev.splice.listing.ListingWriter},
     * {@code JsonlWriter}), its bytes checked to lie inside its section.
     *
     * @return a function region named after the function
     * @throws BadInputException as {@link #bytes()}
     */
    public Region region() {
        Section section = symbol.section();
        if (section == null || section.isNobits()) {
            throw new BadInputException(binary.name() + ": function '" + name() + "' is not in a section with contents");
        }
        long start = address() - section.address();
        if (start < 0 || size() < 0 || start > section.size() || size() > section.size() - start) {
            throw new BadInputException(binary.name() + ": function '" + name() + "' (0x"
                    + Long.toHexString(address()) + ", " + size() + " bytes) lies outside its section "
                    + section.name());
        }
        // From a view of the section, not a copy of it: export reads thousands of functions of one section.
        byte[] bytes = new byte[(int) size()];
        binary.elf().buffer(section).get((int) start, bytes);
        return Region.function(name(), address(), bytes);
    }

    /**
     * Whether another object is the same function of the same binary.
     *
     * @param other an object
     * @return true for the same symbol of the same {@link Binary}
     */
    @Override
    public boolean equals(Object other) {
        return other instanceof Function f && f.binary == binary && f.symbol.equals(symbol);
    }

    /**
     * A hash code consistent with {@link #equals(Object)}.
     *
     * @return the symbol's hash code
     */
    @Override
    public int hashCode() {
        return symbol.hashCode();
    }

    /**
     * The name and address, for messages.
     *
     * @return {@code name@0xADDRESS}
     */
    @Override
    public String toString() {
        return name() + "@0x" + Long.toHexString(address());
    }
}
