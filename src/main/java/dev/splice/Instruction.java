package dev.splice;

import dev.splice.isa.ControlFlow;
import java.util.List;
import java.util.Objects;

/**
 * One decoded item of a function's code: an instruction, or an instruction word Splice does not
 * know ({@code .insn}), or loose bytes that cannot form one ({@code .byte}), as the listing shows
 * them.
 *
 * @param address the address of the first byte
 * @param size the size in bytes: 2 or 4 for an instruction, 6 or 8 for a longer word, 1 to 3 for
 *     loose bytes
 * @param word the bytes as one little-endian number (the instruction word)
 * @param valid true for an instruction of the table, false for {@code .insn} words and loose
 *     bytes
 * @param mnemonic the table's mnemonic in the exact form ({@code c.addi}, not {@code addi}), or
 *     {@code .insn} or {@code .byte}
 * @param operands the operands as values, in printed order (empty when not valid)
 * @param controlFlow what the instruction does to the flow of control ({@link ControlFlow#NONE}
 *     when not valid)
 * @param text the exact form as {@code splice disasm} prints it, with targets as absolute
 *     addresses ({@code bne a1, a3, 0x1070c})
 */
public record Instruction(long address, int size, long word, boolean valid, String mnemonic, List<Operand> operands,
                          ControlFlow controlFlow, String text) {
    /**
     * Checks and copies the components.
     *
     * @param address the address of the first byte
     * @param size the size in bytes
     * @param word the bytes as one little-endian number
     * @param valid true for an instruction of the table
     * @param mnemonic the mnemonic in the exact form
     * @param operands the operands as values
     * @param controlFlow what the instruction does to the flow of control
     * @param text the exact form with absolute targets
     */
    public Instruction {
        if (size < 1 || size > 8) {
            throw new IllegalArgumentException("size " + size + " is not 1 to 8 bytes");
        }
        Objects.requireNonNull(mnemonic, "mnemonic");
        operands = List.copyOf(operands);
        Objects.requireNonNull(controlFlow, "controlFlow");
        Objects.requireNonNull(text, "text");
    }

    /**
     * The instruction's bytes as they are in the file.
     *
     * @return a new array of {@link #size()} bytes
     */
    public byte[] bytes() {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (word >>> (8 * i));
        }
        return bytes;
    }

    /**
     * The address just past the instruction.
     *
     * @return {@code address + size}
     */
    public long end() {
        return address + size;
    }

    /**
     * The exact form, as {@link #text()}.
     *
     * @return the exact form
     */
    @Override
    public String toString() {
        return text;
    }
}
