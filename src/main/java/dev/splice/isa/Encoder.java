package dev.splice.isa;

/**
 * Assembles one instruction from its opcode and operand text, driven by the same operand template
 * the printer uses. Out-of-range, misaligned or reserved values are errors, never truncated.
 */
public final class Encoder {
    private Encoder() {}

    /**
     * Assembles from the exact mnemonic's opcode and the operand text in the form the EXACT printer
     * prints (plus decimal/hex/negative immediates, ABI and x-names, CSR names or numbers,
     * rounding-mode names, fence sets). A pc-relative target is an absolute address (number), ". +
     * offset", or a symbol resolved through {@code symbols}; the encoded offset is target - pc.
     *
     * @param op the instruction
     * @param operands the operand text
     * @param pc the instruction's address
     * @param symbols resolves symbol names used as targets
     * @return the instruction word (a 16-bit one in the low half)
     * @throws OperandException if an operand is malformed, out of range or reserved
     */
    public static int assemble(Opcode op, String operands, long pc, SymbolResolver symbols)
            throws OperandException {
        OperandParser p = new OperandParser(op, operands, pc, symbols);
        long[] values = p.parse();
        return encodeChecked(op, values, p.columns());
    }

    /**
     * Encodes from operand values in the table's operand order (registers as numbers, immediates as
     * values, pc-relative operands as byte offsets). Trailing optional operands (rounding mode,
     * c.nop's immediate) may be left out.
     *
     * @param op the instruction
     * @param values the operand values
     * @return the instruction word (a 16-bit one in the low half)
     * @throws OperandException if a value is out of range or reserved, or the count is wrong
     */
    public static int encode(Opcode op, long... values) throws OperandException {
        Field[] fs = op.fields;
        int required = fs.length;
        while (required > 0 && isOptional(op, required - 1)) {
            required--;
        }
        if (values.length < required || values.length > fs.length) {
            throw new OperandException(op.mnemonic() + " takes " + (required == fs.length ? "" : required + " to ")
                    + fs.length + " operands, got " + values.length, -1);
        }
        long[] all = new long[fs.length];
        System.arraycopy(values, 0, all, 0, values.length);
        for (int i = values.length; i < fs.length; i++) {
            all[i] = defaultValue(fs[i]);
        }
        return encodeChecked(op, all, null);
    }

    static boolean isOptional(Opcode op, int fieldIndex) {
        int k = 0;
        for (Template.Token t : op.operands.tokens()) {
            if (t.isField()) {
                if (k == fieldIndex) {
                    return t.optional();
                }
                k++;
            }
        }
        return false;
    }

    static long defaultValue(Field f) {
        return switch (f.kind) {
            case RM -> 7;
            case VMASK -> 1; // unmasked
            default -> 0;
        };
    }

    private static int encodeChecked(Opcode op, long[] values, int[] columns) throws OperandException {
        int bits = op.match();
        Field[] fs = op.fields;
        for (int i = 0; i < fs.length; i++) {
            Field f = fs[i];
            long v = values[i];
            int col = columns == null ? -1 : columns[i];
            String problem = f.check(v);
            if (problem != null) {
                throw new OperandException(op.mnemonic() + ": " + describe(f) + " " + v + " " + problem, col);
            }
            if ((f.kind == OperandKind.RM || f.kind == OperandKind.RMX) && (v == 5 || v == 6)) {
                throw new OperandException(op.mnemonic() + ": rounding mode " + v + " is reserved", col);
            }
            bits |= f.insert(v);
        }
        for (int i = 0; i < op.constraintFields.length; i++) {
            Field f = op.constraintFields[i];
            long v = f.value(bits);
            for (long bad : op.forbidden[i]) {
                if (v == bad) {
                    int col = -1;
                    for (int k = 0; k < fs.length; k++) {
                        if (fs[k] == f && columns != null) {
                            col = columns[k];
                        }
                    }
                    throw new OperandException(op.mnemonic() + ": " + describe(f) + " must not be "
                            + shown(f, v) + " (reserved encoding)", col);
                }
            }
        }
        return op.size() == 2 ? bits & 0xffff : bits;
    }

    private static String shown(Field f, long v) {
        StringBuilder sb = new StringBuilder();
        Printer.value(f, v, 0, sb, TargetNamer.ABSOLUTE);
        return sb.toString();
    }

    static String describe(Field f) {
        return switch (f.kind) {
            case XREG, XREGQ, FREG, FREGQ, VREG -> "register " + f.name;
            case VMASK -> "mask operand";
            case VTYPE -> "vtype";
            case PCREL -> "branch offset";
            case CSR -> "CSR number";
            case RM, RMX -> "rounding mode";
            case FENCE -> "fence set";
            case FLI -> "fli constant";
            default -> "immediate";
        };
    }
}
