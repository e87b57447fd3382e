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
 * insertion's own slot ({@code {counter}}), in two registers the function never names when it has
 * two such caller-saved ones (dead everywhere in it), else in t0 and t1 saved below a lowered sp;
 * before a conditional branch, the branch's inverse first, over the increment, so that only a taken
 * branch counts. The condition is tested before anything is changed, so a branch on sp, t0 or t1
 * tests the program's values.
 */
final class CounterFragments {
    private static final Isa ISA = Isa.rv64();
    private static final Decoder DECODER = ISA.decoder(ISA.extensions());
    private static final Map<String, String> INVERSE = Map.of("beq", "bne", "bne", "beq", "blt", "bge", "bge", "blt",
            "bltu", "bgeu", "bgeu", "bltu", "c.beqz", "bne", "c.bnez", "beq");

    private final String increment;

    /**
     * The fragments for one function.
     *
     * @param atomic amoadd.d (right with several threads) or a plain load, add and store
     * @param unused caller-saved registers the function never names, in order of preference
     */
    CounterFragments(boolean atomic, int[] unused) {
        boolean free = unused.length >= 2;
        String a = free ? "x" + unused[0] : "t0";
        String b = free ? "x" + unused[1] : "t1";
        String add = atomic ? "li " + b + ", 1\namoadd.d zero, " + b + ", (" + a + ")\n"
                : "ld " + b + ", 0(" + a + ")\naddi " + b + ", " + b + ", 1\nsd " + b + ", 0(" + a + ")\n";
        String body = "la " + a + ", {counter}\n" + add;
        increment = free ? body : "addi sp, sp, -16\nsd t0, 0(sp)\nsd t1, 8(sp)\n" + body
                + "ld t1, 8(sp)\nld t0, 0(sp)\naddi sp, sp, 16\n";
    }

    /** {@return the fragment that counts every execution of the instruction it precedes} */
    String always() {
        return increment;
    }

    /**
     * The fragment that counts the taken executions of the conditional branch at {@code address}.
     *
     * @param elf the binary
     * @param address the branch's address
     * @return the fragment's text
     */
    String ifTaken(ElfFile elf, long address) {
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
        return inverse + " x" + rs1 + ", x" + rs2 + ", 1f\n" + increment + "1:\n";
    }
}
