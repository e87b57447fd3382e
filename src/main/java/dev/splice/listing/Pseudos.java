package dev.splice.listing;

import dev.splice.base.Hex;
import dev.splice.isa.Extension;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

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

        /** The operand's value if it is a constant expression (no label, no external name), else null. */
        Long constant(Operand operand);

        /** Whether the statement's target has an extension. */
        boolean has(Extension extension);

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

    /** The forms of each pseudo-instruction, by operand count. */
    private static final Map<String, Map<Integer, Form>> FORMS = new HashMap<>();
    /** Real mnemonics that also have pseudo forms, chosen by the operand count (and, for jalr, the operand shape). */
    private static final Set<String> REAL = Set.of("jal", "jalr", "fence", "sfence.vma", "sext.b", "sext.h", "zext.h");
    /** Pseudo-instructions that are real instructions of an extension: with it, the real one. */
    private static final Map<String, Extension> NATIVE_WITH = Map.of("sext.b", Extension.ZBB, "sext.h", Extension.ZBB,
            "zext.h", Extension.ZBB);
    /** Pseudo-instructions whose last operand is a branch, jump or address target. */
    static final Set<String> TARGETS = new HashSet<>();

    private static void add(String name, int count, String usage, Expansion expansion) {
        FORMS.computeIfAbsent(name, k -> new HashMap<>()).put(count, new Form(count, usage, expansion));
    }

    private static Step step(String mnemonic, Object... operands) {
        return new Step(mnemonic, OperandText.of(operands));
    }

    static {
        add("nop", 0, "nop", (o, c) -> List.of(step("addi", "zero", "zero", "0")));
        add("mv", 2, "mv rd, rs", (o, c) -> List.of(step("addi", o.get(0), o.get(1), "0")));
        add("move", 2, "move rd, rs", (o, c) -> List.of(step("addi", o.get(0), o.get(1), "0")));
        add("sgt", 3, "sgt rd, rs, rt", (o, c) -> List.of(step("slt", o.get(0), o.get(2), o.get(1))));
        add("sgtu", 3, "sgtu rd, rs, rt", (o, c) -> List.of(step("sltu", o.get(0), o.get(2), o.get(1))));
        add("sbreak", 0, "sbreak", (o, c) -> List.of(step("ebreak")));
        add("scall", 0, "scall", (o, c) -> List.of(step("ecall")));
        add("unimp", 0, "unimp", (o, c) -> List.of(step("csrrw", "zero", "cycle", "zero")));
        add("pause", 0, "pause", (o, c) -> List.of(step("fence", "w", "0")));
        add("sfence.vma", 0, "sfence.vma", (o, c) -> List.of(step("sfence.vma", "zero", "zero")));
        add("sfence.vma", 1, "sfence.vma rs", (o, c) -> List.of(step("sfence.vma", o.get(0), "zero")));
        add("zext.w", 2, "zext.w rd, rs", (o, c) -> c.has(Extension.ZBA) ? List.of(step("add.uw", o.get(0), o.get(1), "zero"))
                : shifts("srli", o, 32));
        add("sext.b", 2, "sext.b rd, rs", (o, c) -> shifts("srai", o, 56));
        add("sext.h", 2, "sext.h rd, rs", (o, c) -> shifts("srai", o, 48));
        add("zext.h", 2, "zext.h rd, rs", (o, c) -> shifts("srli", o, 48));
        add("c.slli64", 1, "c.slli64 rd", (o, c) -> List.of(step("c.slli", o.get(0), "0")));
        add("c.srli64", 1, "c.srli64 rd", (o, c) -> List.of(step("c.srli", o.get(0), "0")));
        add("c.srai64", 1, "c.srai64 rd", (o, c) -> List.of(step("c.srai", o.get(0), "0")));
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
        add("jalr", 2, "jalr rd, rs", (o, c) -> List.of(step("jalr", o.get(0), memory(o.get(1)))));
        add("jalr", 3, "jalr rd, rs, imm", (o, c) -> List.of(step("jalr", o.get(0), o.get(2).text() + "(" + o.get(1).text() + ")")));
        add("jr", 2, "jr rs, imm", (o, c) -> List.of(step("jalr", "zero", o.get(1).text() + "(" + o.get(0).text() + ")")));
        add("ret", 0, "ret", (o, c) -> List.of(step("jalr", "zero", "0(ra)")));
        add("call", 1, "call target", (o, c) -> pcRelative(c, o.get(0), "ra", "jalr", "ra", "ra"));
        add("tail", 1, "tail target", (o, c) -> pcRelative(c, o.get(0), "t1", "jalr", "zero", "t1"));
        add("la", 2, "la rd, symbol", (o, c) -> address(c, o));
        add("lla", 2, "lla rd, symbol", (o, c) -> address(c, o));
        add("li", 2, "li rd, value", (o, c) -> LoadImmediate.steps(o.get(0), immediate(c, o.get(1))));

        for (String t : new String[] {"s", "d"}) {
            add("fmv." + t, 2, "fmv." + t + " rd, rs", (o, c) -> List.of(step("fsgnj." + t, o.get(0), o.get(1), o.get(1))));
            add("fneg." + t, 2, "fneg." + t + " rd, rs", (o, c) -> List.of(step("fsgnjn." + t, o.get(0), o.get(1), o.get(1))));
            add("fabs." + t, 2, "fabs." + t + " rd, rs", (o, c) -> List.of(step("fsgnjx." + t, o.get(0), o.get(1), o.get(1))));
            add("fgt." + t, 3, "fgt." + t + " rd, fs, ft", (o, c) -> List.of(step("flt." + t, o.get(0), o.get(2), o.get(1))));
            add("fge." + t, 3, "fge." + t + " rd, fs, ft", (o, c) -> List.of(step("fle." + t, o.get(0), o.get(2), o.get(1))));
        }
        add("fmv.x.s", 2, "fmv.x.s rd, fs", (o, c) -> List.of(step("fmv.x.w", o.get(0), o.get(1))));
        add("fmv.s.x", 2, "fmv.s.x fd, rs", (o, c) -> List.of(step("fmv.w.x", o.get(0), o.get(1))));

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
        for (String[] csr : new String[][] {{"csr", "fcsr"}, {"rm", "frm"}, {"flags", "fflags"}, {"sr", "fcsr"}}) {
            String name = csr[0];
            String number = csr[1];
            add("fr" + name, 1, "fr" + name + " rd", (o, c) -> List.of(step("csrrs", o.get(0), number, "zero")));
            add("fs" + name, 1, "fs" + name + " rs", (o, c) -> List.of(step("csrrw", "zero", number, o.get(0))));
            add("fs" + name, 2, "fs" + name + " rd, rs", (o, c) -> List.of(step("csrrw", o.get(0), number, o.get(1))));
            if (!name.startsWith("s") && !name.equals("csr")) {
                add("fs" + name + "i", 1, "fs" + name + "i imm", (o, c) -> List.of(step("csrrwi", "zero", number, o.get(0))));
                add("fs" + name + "i", 2, "fs" + name + "i rd, imm", (o, c) -> List.of(step("csrrwi", o.get(0), number, o.get(1))));
            }
        }
        add("fence", 0, "fence", (o, c) -> List.of(step("fence", "iorw", "iorw")));
        TARGETS.addAll(List.of("beqz", "bnez", "blez", "bgez", "bltz", "bgtz", "bgt", "ble", "bgtu", "bleu", "j", "jal", "call",
                "tail", "la", "lla"));
    }

    private Pseudos() {}

    /**
     * True if {@code mnemonic} with these operands is a pseudo-instruction here, for a statement
     * whose target has {@code target}'s extensions.
     */
    static boolean handles(String mnemonic, List<Operand> operands, Set<Extension> target) {
        Map<Integer, Form> forms = FORMS.get(mnemonic);
        if (forms == null) {
            return false;
        }
        Extension real = NATIVE_WITH.get(mnemonic);
        if (real != null && target.contains(real)) {
            return false; // the real Zbb instruction
        }
        if (!REAL.contains(mnemonic)) {
            return true;
        }
        if (mnemonic.equals("jalr") && operands.size() == 2) {
            return !operands.get(1).text().endsWith(")"); // "jalr rd, rs", not "jalr rd, imm(rs)"
        }
        return forms.containsKey(operands.size());
    }

    static List<Step> expand(String mnemonic, List<Operand> operands, Context context) {
        Map<Integer, Form> forms = FORMS.get(mnemonic);
        Form form = forms.get(operands.size());
        if (form == null) {
            StringBuilder usage = new StringBuilder();
            int counts = 0;
            for (Form f : forms.values()) {
                usage.append(counts++ > 0 ? " or " : "").append(f.usage());
            }
            Form any = forms.values().iterator().next();
            throw context.error("'" + mnemonic + "' takes " + (counts == 1 ? any.operandCount() + " operand"
                    + (any.operandCount() == 1 ? "" : "s") + " (" + usage + ")" : usage) + ", not " + operands.size());
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
        Long value = context.constant(operand);
        if (value == null) {
            throw context.error(operand, "'" + operand.text() + "' is not a number or a constant expression");
        }
        return value;
    }

    /** slli rd, rs, n; then the shift back (srli or srai) by n: the peers' expansion without Zba/Zbb. */
    private static List<Step> shifts(String back, List<Operand> o, int n) {
        return List.of(step("slli", o.get(0), o.get(1), Integer.toString(n)), step(back, o.get(0), o.get(0), Integer.toString(n)));
    }

    /** la/lla: of a constant, lui/addiw as GNU as loads it (llvm-mc-22: lui/addi); of a symbol, auipc + addi. */
    private static List<Step> address(Context context, List<Operand> o) {
        Long constant = context.constant(o.get(1));
        if (constant != null) {
            if (constant != (int) (long) constant) {
                throw context.error(o.get(1), "address " + o.get(1).text() + " does not fit in 32 signed bits (GNU as: offset too large)");
            }
            return LoadImmediate.addressSteps(o.get(0), constant);
        }
        return pcRelative(context, o.get(1), o.get(0), "addi", o.get(0), o.get(0));
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
