package dev.splice.isa;

/**
 * Prints decoded instructions as "mnemonic operands". The work is done on bytes ({@link
 * TextBuffer}): mnemonics, literals and register names are precomputed ASCII, numbers are
 * formatted in place, so printing a listing allocates nothing per instruction. The StringBuilder
 * methods are conveniences over the same code.
 */
public final class Printer {
    /** Exact form: one table mnemonic, no aliases (c.* stays c.*); reassembles to the same bits. */
    public static final Printer EXACT = new Printer(false);
    /** Readable form like objdump's default: li, mv, ret, j, beqz, nop, ... (not guaranteed to round-trip). */
    public static final Printer ALIASES = new Printer(true);

    private static final byte[] HEX_PREFIX = {'0', 'x'};

    private final boolean aliases;

    private Printer(boolean aliases) {
        this.aliases = aliases;
    }

    /**
     * Appends "mnemonic operands" (operands separated by ", ", memory operands as "imm(reg)").
     *
     * @param op the instruction
     * @param bits its word
     * @param pc its address (for pc-relative targets)
     * @param out where the text goes
     * @param targets names pc-relative targets
     */
    public void print(Opcode op, int bits, long pc, TextBuffer out, TargetNamer targets) {
        if (aliases) {
            // A compressed instruction's own aliases first (HINTs, c.mv), then its expansion's.
            if (op.size() == 2 && alias(op, bits, pc, out, targets)) {
                return;
            }
            if (op.expandsTo != null) {
                bits = Expansions.expand(op, bits);
                op = op.expandsTo;
            }
            if (alias(op, bits, pc, out, targets)) {
                return;
            }
        }
        out.append(op.mnemonicBytes);
        int start = out.length();
        out.append((byte) ' ');
        operands(op.operands, bits, pc, out, targets);
        if (out.length() == start + 1) {
            out.setLength(start);
        }
    }

    /**
     * The same, appended to a StringBuilder.
     *
     * @param op the instruction
     * @param bits its word
     * @param pc its address (for pc-relative targets)
     * @param out where the text goes
     * @param targets names pc-relative targets
     */
    public void print(Opcode op, int bits, long pc, StringBuilder out, TargetNamer targets) {
        TextBuffer text = new TextBuffer(64);
        print(op, bits, pc, text, targets);
        out.append(text);
    }

    private boolean alias(Opcode op, int bits, long pc, TextBuffer out, TargetNamer targets) {
        for (Alias a : op.aliases) {
            if (a.matches(bits)) {
                out.append(a.mnemonicBytes);
                if (a.operands.tokens().length > 0) {
                    out.append((byte) ' ');
                    operands(a.operands, bits, pc, out, targets);
                }
                return true;
            }
        }
        return false;
    }

    /** Appends only the operand text. */
    void printOperands(Opcode op, int bits, long pc, TextBuffer out, TargetNamer targets) {
        operands(op.operands, bits, pc, out, targets);
    }

    /** The same, appended to a StringBuilder. */
    void printOperands(Opcode op, int bits, long pc, StringBuilder out, TargetNamer targets) {
        TextBuffer text = new TextBuffer(64);
        printOperands(op, bits, pc, text, targets);
        out.append(text);
    }

    private void operands(Template t, int bits, long pc, TextBuffer out, TargetNamer targets) {
        for (Template.Token tok : t.tokens()) {
            Field f = tok.field();
            if (f == null) {
                out.append(tok.literalBytes());
                continue;
            }
            long v = f.value(bits);
            if (tok.optional()) {
                boolean omit = switch (f.kind) {
                    case RM -> aliases && v == 7;
                    case RMX -> v == 0;
                    case VMASK -> v == 1;
                    default -> v == 0;
                };
                if (omit) {
                    continue;
                }
                out.append(tok.separatorBytes());
            }
            value(f, v, pc, out, targets);
        }
    }

    static void value(Field f, long v, long pc, TextBuffer out, TargetNamer targets) {
        switch (f.kind) {
            case XREG, XREGQ -> out.append(Names.XREG_BYTES[(int) v]);
            case FREG, FREGQ -> out.append(Names.FREG_BYTES[(int) v]);
            case SIMM, UIMM -> out.appendDecimal(v);
            case PCREL -> targets.append(out, pc, pc + v);
            case HEX20 -> out.append(HEX_PREFIX).appendHex(v);
            case CLUI -> out.append(HEX_PREFIX).appendHex(v < 0 ? v + 0x100000 : v);
            case CSR -> {
                byte[] name = Isa.rv64().csrNameBytes((int) v);
                if (name != null) {
                    out.append(name);
                } else {
                    out.append(HEX_PREFIX).appendHex(v);
                }
            }
            case RM, RMX -> out.append(Names.RM_BYTES[(int) v]);
            case FENCE -> out.append(Names.FENCE_BYTES[(int) v]);
            case VREG -> out.append(Names.VREG_BYTES[(int) v]);
            case VMASK -> out.append(Names.V0_T);
            case VTYPE -> {
                if (!VectorType.append(out, (int) v)) {
                    out.append(HEX_PREFIX).appendHex(v);
                }
            }
            case FLI -> out.append(Names.FLI_BYTES[(int) v]);
        }
    }

    /** One operand value as text (for messages and expansions). */
    static void value(Field f, long v, long pc, StringBuilder out, TargetNamer targets) {
        TextBuffer text = new TextBuffer(32);
        value(f, v, pc, text, targets);
        out.append(text);
    }
}
