package dev.splice;

/**
 * One operand of an {@link Instruction}, as a value, in the order the exact form prints it (a
 * memory operand {@code 16(sp)} is an {@link Immediate} followed by a {@link Register}).
 */
public sealed interface Operand {
    /**
     * A register, by its ABI name ({@code a0}, {@code sp}, {@code fa5}, ...).
     *
     * @param name the register's ABI name
     */
    record Register(String name) implements Operand {
        /**
         * The name, as printed.
         *
         * @return {@link #name()}
         */
        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * An immediate value: an offset, a shift amount, an upper immediate, a CSR without a name.
     *
     * @param value the value as the exact form prints it (signed where the field is signed)
     */
    record Immediate(long value) implements Operand {
        /**
         * The value in decimal.
         *
         * @return the decimal text
         */
        @Override
        public String toString() {
            return Long.toString(value);
        }
    }

    /**
     * The absolute address a pc-relative branch or jump goes to.
     *
     * @param address the target address
     */
    record Target(long address) implements Operand {
        /**
         * The address in hex, as the exact form prints it.
         *
         * @return {@code 0x} and the hex digits
         */
        @Override
        public String toString() {
            return "0x" + Long.toHexString(address);
        }
    }

    /**
     * An operand printed as a word that is neither a register nor a number: a CSR name, a rounding
     * mode ({@code rne}, {@code dyn}, ...) or a fence set ({@code iorw}).
     *
     * @param name the word
     */
    record Keyword(String name) implements Operand {
        /**
         * The word, as printed.
         *
         * @return {@link #name()}
         */
        @Override
        public String toString() {
            return name;
        }
    }
}
