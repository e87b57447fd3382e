package dev.splice;

import dev.splice.isa.ControlFlow;
import dev.splice.isa.Decoder;
import dev.splice.isa.Extension;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.isa.Printer;
import dev.splice.isa.TargetNamer;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Decodes code into {@link Instruction}s by a linear sweep, as the listing does.
 *
 * <p>The operand values and the control-flow class are read back from the exact form here: the
 * {@code isa} package does not expose them yet. When it does, {@link #operands} and {@link
 * #controlFlow} become calls to it.
 */
final class Disassembler {
    private Disassembler() {}

    /** One decoder for every extension, built on first use (it takes longer than decoding a function). */
    private static final class Holder {
        static final Decoder DECODER = Isa.rv64().decoder(Extension.all());
    }

    private static final Pattern REGISTER = Pattern.compile("zero|ra|sp|gp|tp|[ast][0-9]+|f[ast][0-9]+");
    private static final Pattern DECIMAL = Pattern.compile("-?[0-9]+");

    static List<Instruction> instructions(byte[] code, long address) {
        Decoder decoder = Holder.DECODER;
        List<Instruction> out = new ArrayList<>();
        StringBuilder text = new StringBuilder(64);
        for (int offset = 0; offset < code.length; ) {
            int packed = decoder.decodeAt(code, offset, code.length);
            int size = Decoder.size(packed);
            long word = 0;
            for (int i = 0; i < size; i++) {
                word |= (code[offset + i] & 0xffL) << (8 * i);
            }
            long pc = address + offset;
            Opcode op = decoder.opcode(packed);
            out.add(op == null ? unknown(pc, size, word, Decoder.isLoose(packed)) : instruction(op, pc, size, word, text));
            offset += size;
        }
        return out;
    }

    private static Instruction instruction(Opcode op, long pc, int size, long word, StringBuilder text) {
        text.setLength(0);
        Printer.EXACT.print(op, (int) word, pc, text, TargetNamer.ABSOLUTE);
        int space = text.indexOf(" ");
        String operandText = space < 0 ? "" : text.substring(space + 1);
        List<Operand> operands = operands(op, (int) word, pc, operandText);
        String exact = operandText.isEmpty() ? op.mnemonic() : op.mnemonic() + " " + operandText;
        return new Instruction(pc, size, word, true, op.mnemonic(), operands, op.controlFlow((int) word), exact);
    }

    /** A word Splice does not know ({@code .insn}) or loose bytes ({@code .byte}), in the listing's form. */
    private static Instruction unknown(long pc, int size, long word, boolean loose) {
        StringBuilder text = new StringBuilder(loose ? ".byte " : ".insn " + size + ", 0x");
        if (loose) {
            for (int i = 0; i < size; i++) {
                text.append(i == 0 ? "0x" : ", 0x").append(String.format("%02x", (word >>> (8 * i)) & 0xff));
            }
        } else {
            text.append(String.format("%0" + (2 * size) + "x", word));
        }
        return new Instruction(pc, size, word, false, loose ? ".byte" : ".insn", List.of(), ControlFlow.NONE,
                text.toString());
    }

    /** The operand words of the exact form as values; a pc-relative target is always the last one. */
    private static List<Operand> operands(Opcode op, int bits, long pc, String text) {
        List<Operand> operands = new ArrayList<>(4);
        for (String token : text.split("[, ()]+")) {
            if (!token.isEmpty()) {
                operands.add(operand(token));
            }
        }
        if (op.hasBranchTarget()) {
            operands.set(operands.size() - 1, new Operand.Target(pc + op.branchOffset(bits)));
        }
        return operands;
    }

    private static Operand operand(String token) {
        if (REGISTER.matcher(token).matches()) {
            return new Operand.Register(token);
        }
        if (token.startsWith("0x")) {
            return new Operand.Immediate(Long.parseUnsignedLong(token.substring(2), 16));
        }
        if (DECIMAL.matcher(token).matches()) {
            return new Operand.Immediate(Long.parseLong(token));
        }
        return new Operand.Keyword(token);
    }

}
