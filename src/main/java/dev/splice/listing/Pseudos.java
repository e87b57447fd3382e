package dev.splice.listing;

import dev.splice.base.Hex;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The pseudo-instructions the assembler accepts, each expanded into base instructions (never
 * compressed ones: exact {@code c.} mnemonics are the way to get those). Expansions follow the
 * RISC-V assembly manual and GNU as.
 */
final class Pseudos {
    /** One base instruction of an expansion. */
    record Step(String mnemonic, OperandText operands) {}

    /** What an expansion needs from the assembler. */
    interface Context {
        /** Address of the first instruction of the expansion. */
        long pc();

        /** The absolute address an operand names (a label, a local label or a number). */
        long target(Operand operand);

        /** An error at an operand of the statement. */
        ListingException error(Operand operand, String message);

        /** An error about the whole statement. */
        ListingException error(String message);
    }

    @FunctionalInterface
    interface Expansion {
        List<Step> expand(List<Operand> operands, Context context);
    }

    private record Form(int operandCount, String usage, Expansion expansion) {}

    private static final Map<String, Form> FORMS = new HashMap<>();
    /** Real mnemonics that also have a short pseudo form, chosen by the operand count. */
    private static final Map<String, Integer> SHORT_FORMS = Map.of("jal", 1, "jalr", 1, "fence", 0);

    private static void add(String name, int count, String usage, Expansion expansion) {
        FORMS.put(name, new Form(count, usage, expansion));
    }

    private static Step step(String mnemonic, Object... operands) {
        return new Step(mnemonic, OperandText.of(operands));
    }

    static {
        add("nop", 0, "nop", (o, c) -> List.of(step("addi", "zero", "zero", "0")));
        add("mv", 2, "mv rd, rs", (o, c) -> List.of(step("addi", o.get(0), o.get(1), "0")));
        add("not", 2, "not rd, rs", (o, c) -> List.of(step("xori", o.get(0), o.get(1), "-1")));
        add("neg", 2, "neg rd, rs", (o, c) -> List.of(step("sub", o.get(0), "zero", o.get(1))));
        add("negw", 2, "negw rd, rs", (o, c) -> List.of(step("subw", o.get(0), "zero", o.get(1))));
        add("sext.w", 2, "sext.w rd, rs", (o, c) -> List.of(step("addiw", o.get(0), o.get(1), "0")));
        add("zext.b", 2, "zext.b rd, rs", (o, c) -> List.of(step("andi", o.get(0), o.get(1), "255")));
        add("seqz", 2, "seqz rd, rs", (o, c) -> List.of(step("sltiu", o.get(0), o.get(1), "1")));
        add("snez", 2, "snez rd, rs", (o, c) -> List.of(step("sltu", o.get(0), "zero", o.get(1))));
        add("sltz", 2, "sltz rd, rs", (o, c) -> List.of(step("slt", o.get(0), o.get(1), "zero")));
        add("sgtz", 2, "sgtz rd, rs", (o, c) -> List.of(step("slt", o.get(0), "zero", o.get(1))));

        add("beqz", 2, "beqz rs, target", (o, c) -> List.of(step("beq", o.get(0), "zero", o.get(1))));
        add("bnez", 2, "bnez rs, target", (o, c) -> List.of(step("bne", o.get(0), "zero", o.get(1))));
        add("blez", 2, "blez rs, target", (o, c) -> List.of(step("bge", "zero", o.get(0), o.get(1))));
        add("bgez", 2, "bgez rs, target", (o, c) -> List.of(step("bge", o.get(0), "zero", o.get(1))));
        add("bltz", 2, "bltz rs, target", (o, c) -> List.of(step("blt", o.get(0), "zero", o.get(1))));
        add("bgtz", 2, "bgtz rs, target", (o, c) -> List.of(step("blt", "zero", o.get(0), o.get(1))));
        add("bgt", 3, "bgt rs, rt, target", (o, c) -> List.of(step("blt", o.get(1), o.get(0), o.get(2))));
        add("ble", 3, "ble rs, rt, target", (o, c) -> List.of(step("bge", o.get(1), o.get(0), o.get(2))));
        add("bgtu", 3, "bgtu rs, rt, target", (o, c) -> List.of(step("bltu", o.get(1), o.get(0), o.get(2))));
        add("bleu", 3, "bleu rs, rt, target", (o, c) -> List.of(step("bgeu", o.get(1), o.get(0), o.get(2))));

        add("j", 1, "j target", (o, c) -> List.of(step("jal", "zero", o.get(0))));
        add("jal", 1, "jal target", (o, c) -> List.of(step("jal", "ra", o.get(0))));
        add("jr", 1, "jr rs", (o, c) -> List.of(step("jalr", "zero", memory(o.get(0)))));
        add("jalr", 1, "jalr rs", (o, c) -> List.of(step("jalr", "ra", memory(o.get(0)))));
        add("ret", 0, "ret", (o, c) -> List.of(step("jalr", "zero", "0(ra)")));
        add("call", 1, "call target", (o, c) -> pcRelative(c, o.get(0), "ra", "jalr", "ra", "ra"));
        add("tail", 1, "tail target", (o, c) -> pcRelative(c, o.get(0), "t1", "jalr", "zero", "t1"));
        add("la", 2, "la rd, symbol", (o, c) -> pcRelative(c, o.get(1), o.get(0), "addi", o.get(0), o.get(0)));
        add("lla", 2, "lla rd, symbol", (o, c) -> pcRelative(c, o.get(1), o.get(0), "addi", o.get(0), o.get(0)));
        add("li", 2, "li rd, value", (o, c) -> LoadImmediate.steps(o.get(0), immediate(c, o.get(1))));

        for (String t : new String[] {"s", "d"}) {
            add("fmv." + t, 2, "fmv." + t + " rd, rs", (o, c) -> List.of(step("fsgnj." + t, o.get(0), o.get(1), o.get(1))));
            add("fneg." + t, 2, "fneg." + t + " rd, rs", (o, c) -> List.of(step("fsgnjn." + t, o.get(0), o.get(1), o.get(1))));
            add("fabs." + t, 2, "fabs." + t + " rd, rs", (o, c) -> List.of(step("fsgnjx." + t, o.get(0), o.get(1), o.get(1))));
        }

        add("csrr", 2, "csrr rd, csr", (o, c) -> List.of(step("csrrs", o.get(0), o.get(1), "zero")));
        add("csrw", 2, "csrw csr, rs", (o, c) -> List.of(step("csrrw", "zero", o.get(0), o.get(1))));
        add("csrs", 2, "csrs csr, rs", (o, c) -> List.of(step("csrrs", "zero", o.get(0), o.get(1))));
        add("csrc", 2, "csrc csr, rs", (o, c) -> List.of(step("csrrc", "zero", o.get(0), o.get(1))));
        add("csrwi", 2, "csrwi csr, imm", (o, c) -> List.of(step("csrrwi", "zero", o.get(0), o.get(1))));
        add("csrsi", 2, "csrsi csr, imm", (o, c) -> List.of(step("csrrsi", "zero", o.get(0), o.get(1))));
        add("csrci", 2, "csrci csr, imm", (o, c) -> List.of(step("csrrci", "zero", o.get(0), o.get(1))));
        add("rdcycle", 1, "rdcycle rd", (o, c) -> List.of(step("csrrs", o.get(0), "cycle", "zero")));
        add("rdtime", 1, "rdtime rd", (o, c) -> List.of(step("csrrs", o.get(0), "time", "zero")));
        add("rdinstret", 1, "rdinstret rd", (o, c) -> List.of(step("csrrs", o.get(0), "instret", "zero")));
        add("frcsr", 1, "frcsr rd", (o, c) -> List.of(step("csrrs", o.get(0), "fcsr", "zero")));
        add("fscsr", 1, "fscsr rs", (o, c) -> List.of(step("csrrw", "zero", "fcsr", o.get(0))));
        add("frrm", 1, "frrm rd", (o, c) -> List.of(step("csrrs", o.get(0), "frm", "zero")));
        add("fsrm", 1, "fsrm rs", (o, c) -> List.of(step("csrrw", "zero", "frm", o.get(0))));
        add("frflags", 1, "frflags rd", (o, c) -> List.of(step("csrrs", o.get(0), "fflags", "zero")));
        add("fsflags", 1, "fsflags rs", (o, c) -> List.of(step("csrrw", "zero", "fflags", o.get(0))));
        add("fence", 0, "fence", (o, c) -> List.of(step("fence", "iorw", "iorw")));
    }

    private Pseudos() {}

    /** True if {@code mnemonic} with this many operands is a pseudo-instruction here. */
    static boolean handles(String mnemonic, int operandCount) {
        Integer shortForm = SHORT_FORMS.get(mnemonic);
        if (shortForm != null) {
            return operandCount == shortForm;
        }
        return FORMS.containsKey(mnemonic);
    }

    static List<Step> expand(String mnemonic, List<Operand> operands, Context context) {
        Form form = FORMS.get(mnemonic);
        if (operands.size() != form.operandCount()) {
            throw context.error("'" + mnemonic + "' takes " + form.operandCount() + " operand"
                    + (form.operandCount() == 1 ? "" : "s") + " (" + form.usage() + "), not " + operands.size());
        }
        for (Operand operand : operands) {
            if (operand.text().isEmpty()) {
                throw context.error(operand, "empty operand");
            }
        }
        return form.expansion().expand(operands, context);
    }

    /** "rs" as the memory operand "0(rs)"; an operand already in memory form stays. */
    private static Operand memory(Operand register) {
        String text = register.text();
        return text.endsWith(")") ? register : new Operand("0(" + text + ")", register.column() > 0 ? register.column() - 2 : 0);
    }

    private static long immediate(Context context, Operand operand) {
        try {
            return Numbers.parse(operand.text());
        } catch (NumberFormatException e) {
            throw context.error(operand, e.getMessage());
        }
    }

    /**
     * auipc + a low-12-bit instruction reaching {@code target}: the upper part rounds so that the
     * signed low part completes it; the offset must fit in 32 signed bits after rounding.
     */
    private static List<Step> pcRelative(Context context, Operand target, Object auipcRd, String second,
            Object secondRd, Object base) {
        long offset = context.target(target) - context.pc();
        long high = (offset + 0x800) >> 12;
        long low = offset - (high << 12);
        if (high < -(1L << 19) || high >= (1L << 19)) {
            throw context.error(target, "target 0x" + Long.toHexString(context.target(target))
                    + " is out of the +-2 GiB range of auipc from 0x" + Long.toHexString(context.pc()));
        }
        Step auipc = step("auipc", auipcRd, Hex.of(high & 0xfffff));
        Step rest = second.equals("jalr")
                ? step("jalr", secondRd, low + "(" + text(base) + ")")
                : step(second, secondRd, base, Long.toString(low));
        return List.of(auipc, rest);
    }

    private static String text(Object operand) {
        return operand instanceof Operand o ? o.text() : String.valueOf(operand);
    }
}
