package dev.splice.isa;

/** Prints decoded instructions as "mnemonic operands". */
public final class Printer {
    /** Exact form: one table mnemonic, no aliases (c.* stays c.*); reassembles to the same bits. */
    public static final Printer EXACT = new Printer(false);
    /** Readable form like objdump's default: li, mv, ret, j, beqz, nop, ... (not guaranteed to round-trip). */
    public static final Printer ALIASES = new Printer(true);

    private final boolean aliases;

    private Printer(boolean aliases) {
        this.aliases = aliases;
    }

    /** Appends "mnemonic operands" (operands separated by ", ", memory operands as "imm(reg)"). */
    public void print(Opcode op, int bits, long pc, StringBuilder out, TargetNamer targets) {
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
        out.append(op.mnemonic());
        int start = out.length();
        out.append(' ');
        operands(op.operands, bits, pc, out, targets);
        if (out.length() == start + 1) {
            out.setLength(start);
        }
    }

    private boolean alias(Opcode op, int bits, long pc, StringBuilder out, TargetNamer targets) {
        for (Alias a : op.aliases) {
            if (a.matches(bits)) {
                out.append(a.mnemonic);
                if (a.operands.tokens().length > 0) {
                    out.append(' ');
                    operands(a.operands, bits, pc, out, targets);
                }
                return true;
            }
        }
        return false;
    }

    /** Appends only the operand text. */
    public void printOperands(Opcode op, int bits, long pc, StringBuilder out, TargetNamer targets) {
        operands(op.operands, bits, pc, out, targets);
    }

    private void operands(Template t, int bits, long pc, StringBuilder out, TargetNamer targets) {
        for (Template.Token tok : t.tokens()) {
            if (!tok.isField()) {
                out.append(tok.literal());
                continue;
            }
            Field f = tok.field();
            long v = f.value(bits);
            if (tok.optional()) {
                boolean omit = switch (f.kind) {
                    case RM -> aliases && v == 7;
                    case RMX -> v == 0;
                    default -> v == 0;
                };
                if (omit) {
                    continue;
                }
                out.append(tok.separator());
            }
            value(f, v, pc, out, targets);
        }
    }

    static void value(Field f, long v, long pc, StringBuilder out, TargetNamer targets) {
        switch (f.kind) {
            case XREG, XREGQ -> out.append(Names.XREG[(int) v]);
            case FREG, FREGQ -> out.append(Names.FREG[(int) v]);
            case SIMM, UIMM -> out.append(v);
            case PCREL -> targets.append(out, pc, pc + v);
            case HEX20 -> out.append("0x").append(Long.toHexString(v));
            case CLUI -> out.append("0x").append(Long.toHexString(v < 0 ? v + 0x100000 : v));
            case CSR -> {
                String name = Isa.rv64().csrName((int) v);
                if (name != null) {
                    out.append(name);
                } else {
                    out.append("0x").append(Long.toHexString(v));
                }
            }
            case RM, RMX -> {
                String name = Names.RM[(int) v];
                out.append(name != null ? name : Long.toString(v));
            }
            case FENCE -> Names.appendFence(out, (int) v);
        }
    }
}
