package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_CALL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_JAL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_LO12_I;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_LO12_S;

import dev.splice.base.Le;
import dev.splice.isa.Decoder;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import java.util.ArrayList;
import java.util.List;

/**
 * The placement-dependent words of the shipped runtime's code, read back from its bytes: every
 * auipc with the instruction after it that completes it (a call, or an address and its use), every
 * {@code jal} and conditional branch. The runtime's listing writes each pair's halves next to each
 * other and uses no compressed instructions, so reading the bytes finds them all; anything else
 * there is a bug of the listing, and stops the rewrite.
 */
final class RuntimeCodeWords {
    private RuntimeCodeWords() {}

    /**
     * The references of the code in {@code code[0, end)}, placed at {@code base}.
     *
     * @param code the runtime's bytes
     * @param end the end of its code (its parameters follow)
     * @param base the runtime's address in the output
     * @param decoder a decoder of the output's instructions
     * @return the references, in address order
     */
    static List<RuntimeReference> read(byte[] code, int end, long base, Decoder decoder) {
        List<RuntimeReference> out = new ArrayList<>();
        for (int p = 0; p < end; p += 4) {
            int word = Le.u32(code, p);
            Opcode op = decoder.decode(word, 4);
            if (op == null) {
                throw new IllegalStateException("the runtime's byte " + p + " is not a 32-bit instruction");
            }
            long pc = base + p;
            if (op == Rv.AUIPC) {
                int low = Le.u32(code, p + 4);
                Opcode next = decoder.decode(low, 4);
                if (next == null || !next.has(Operand.RS1) || !next.has(Operand.IMM)
                        || next.operand(low, Operand.RS1) != op.operand(word, Operand.RD)) {
                    throw new IllegalStateException("the runtime's auipc at byte " + p + " is not followed by its low part");
                }
                long target = pc + Rv.upper(Rv.AUIPC, word) + next.operand(low, Operand.IMM);
                if (next == Rv.JALR) {
                    out.add(new RuntimeReference(pc, R_RISCV_CALL, target));
                } else {
                    boolean store = next.has(Operand.RS2) && !next.has(Operand.RD);
                    out.add(new RuntimeReference(pc, R_RISCV_PCREL_HI20, target));
                    out.add(new RuntimeReference(pc + 4, store ? R_RISCV_PCREL_LO12_S : R_RISCV_PCREL_LO12_I, pc));
                }
                p += 4;
            } else if (op == Rv.JAL) {
                out.add(new RuntimeReference(pc, R_RISCV_JAL, pc + op.branchOffset(word)));
            } else if (op.hasBranchTarget()) {
                out.add(new RuntimeReference(pc, R_RISCV_BRANCH, pc + op.branchOffset(word)));
            }
        }
        return out;
    }
}
