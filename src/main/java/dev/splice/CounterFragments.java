package dev.splice;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.isa.Decoder;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import java.util.Map;

/**
 * The fragments of {@code splice instrument}'s counters (docs/instrument.md): add 1 to the
 * insertion's own slot ({@code {counter}}), in two registers dead at the point ({@code
 * cfg.Liveness}) when there are two, else in one dead register and one saved below a lowered sp,
 * else in t0 and t1 both saved; before a conditional branch, the branch's inverse first, over the
 * increment, so that only a taken branch counts. The condition is tested before anything is
 * changed, so a branch on sp, t0 or t1 tests the program's values.
 */
final class CounterFragments {
    private static final Isa ISA = Isa.rv64();
    private static final Decoder DECODER = ISA.decoder(ISA.extensions());
    private static final Map<String, String> INVERSE = Map.of("beq", "bne", "bne", "beq", "blt", "bge", "bge", "blt",
            "bltu", "bgeu", "bgeu", "bltu", "c.beqz", "bne", "c.bnez", "beq");
    /**
     * The registers a counter may take where they are dead: temporaries, then arguments, then ra.
     * Caller-saved ones only: the unwinder restores callee-saved registers from frames' save
     * slots, and overwriting dead callee-saved registers broke a C++ program's exception path
     * (RiscVLivenessTest checks the caller-saved ones under QEMU).
     */
    static final int[] CANDIDATES = {5, 6, 7, 28, 29, 30, 31, 17, 16, 15, 14, 13, 12, 11, 10, 1};

    private final boolean atomic;

    /**
     * The fragments of a binary.
     *
     * @param atomic amoadd.d (right with several threads) or a plain load, add and store
     */
    CounterFragments(boolean atomic) {
        this.atomic = atomic;
    }

    /**
     * The fragment that counts every execution of the instruction it precedes.
     *
     * @param live the registers live at the point (bit r for xr)
     * @return the fragment's text
     */
    String always(int live) {
        int[] dead = dead(live);
        String a = dead.length >= 1 ? "x" + dead[0] : "t0";
        String b = dead.length >= 2 ? "x" + dead[1] : dead.length == 1 && dead[0] == 5 ? "t1" : dead.length == 1 ? "t0" : "t1";
        String add = atomic ? "li " + b + ", 1\namoadd.d zero, " + b + ", (" + a + ")\n"
                : "ld " + b + ", 0(" + a + ")\naddi " + b + ", " + b + ", 1\nsd " + b + ", 0(" + a + ")\n";
        String body = "la " + a + ", {counter}\n" + add;
        return switch (dead.length) {
            case 0 -> "addi sp, sp, -16\nsd t0, 0(sp)\nsd t1, 8(sp)\n" + body + "ld t1, 8(sp)\nld t0, 0(sp)\naddi sp, sp, 16\n";
            case 1 -> "addi sp, sp, -16\nsd " + b + ", 0(sp)\n" + body + "ld " + b + ", 0(sp)\naddi sp, sp, 16\n";
            default -> body;
        };
    }

    /**
     * The fragment that counts the taken executions of the conditional branch at {@code address}.
     *
     * @param elf the binary
     * @param address the branch's address
     * @param live the registers live before the branch (its own operands among them)
     * @return the fragment's text
     */
    String ifTaken(ElfFile elf, long address, int live) {
        return inverse(elf, address) + "1f\n" + always(live) + "1:\n";
    }

    /**
     * A fragment that runs only when the conditional branch at {@code address}, which follows it,
     * will be taken: the branch's inverse over it (its operands are live there, so the fragment
     * does not change them).
     *
     * @param elf the binary
     * @param address the branch's address
     * @param body the fragment's text
     * @return the guarded fragment's text
     */
    String ifTakenOnly(ElfFile elf, long address, String body) {
        return inverse(elf, address) + "1f\n" + body + "1:\n";
    }

    /** The inverse of the conditional branch at {@code address}, with its operands, up to its target. */
    private static String inverse(ElfFile elf, long address) {
        Section s = elf.sectionContaining(address).orElseThrow();
        byte[] code = elf.contents(s);
        int at = (int) (address - s.address());
        int packed = DECODER.decodeAt(code, at, code.length);
        Opcode op = DECODER.opcode(packed);
        int bits = 0;
        for (int i = 0; i < Decoder.size(packed); i++) {
            bits |= (code[at + i] & 0xff) << (8 * i);
        }
        String inverse = op == null ? null : INVERSE.get(op.mnemonic());
        if (inverse == null) {
            throw new IllegalStateException("no conditional branch at 0x" + Long.toHexString(address));
        }
        long rs1 = op.operand(bits, Operand.RS1);
        long rs2 = op.has(Operand.RS2) ? op.operand(bits, Operand.RS2) : 0;
        return inverse + " x" + rs1 + ", x" + rs2 + ", ";
    }

    /**
     * A promoted counter's increment (docs/instrument.md, "Counter promotion"): one addi on its register.
     *
     * @param register the counter's register
     * @return the fragment's text
     */
    String promoted(int register) {
        return "addi x" + register + ", x" + register + ", 1\n";
    }

    /**
     * A promoted counter's increment when the conditional branch at {@code address} is taken.
     *
     * @param elf the binary
     * @param address the branch's address
     * @param register the counter's register
     * @return the fragment's text
     */
    String promotedIfTaken(ElfFile elf, long address, int register) {
        return inverse(elf, address) + "1f\n" + promoted(register) + "1:\n";
    }

    /**
     * The zeroing of a promoted loop's counters on the way in.
     *
     * @param registers their registers
     * @return the fragment's text
     */
    String zero(java.util.List<Integer> registers) {
        StringBuilder out = new StringBuilder();
        registers.forEach(r -> out.append("li x").append(r).append(", 0\n"));
        return out.toString();
    }

    /**
     * The flush of promoted counters on a way out: each register added to its slot atomically.
     *
     * @param registers the counters' registers
     * @param slots their slots, in the same order
     * @param scratch a register dead at the point for the slot's address
     * @return the fragment's text
     */
    String flush(java.util.List<Integer> registers, int[] slots, int scratch) {
        StringBuilder out = new StringBuilder();
        for (int k = 0; k < slots.length; k++) {
            out.append("la x").append(scratch).append(", __splice_counters+").append(8L * slots[k]).append('\n')
                    .append("amoadd.d zero, x").append(registers.get(k)).append(", (x").append(scratch).append(")\n");
        }
        return out.toString();
    }

    /**
     * The first counter register dead at a point.
     *
     * @param live the registers live (or reserved) there
     * @return the register, or -1 if none is dead
     */
    static int firstDead(int live) {
        int[] dead = dead(live);
        return dead.length > 0 ? dead[0] : -1;
    }

    private static int[] dead(int live) {
        return java.util.Arrays.stream(CANDIDATES).filter(r -> (live & 1 << r) == 0).limit(2).toArray();
    }
}
