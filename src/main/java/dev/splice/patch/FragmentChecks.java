package dev.splice.patch;

import static dev.splice.base.Le.u32;

import dev.splice.isa.ControlFlow;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import dev.splice.patch.FragmentCode.Fixup;
import dev.splice.patch.PatchException.Reason;
import java.util.List;

/**
 * The rule for where a fragment's control may go: within itself or to its own end; out only by a
 * call to a known function (of the binary or of the runtime) that comes back: {@code call sym},
 * {@code jal ra, sym}, or {@code la r, sym} followed by {@code jalr ra, 0(r)}. Anything else that
 * leaves it (a jump or branch out, {@code ret}, {@code jr}, a call through an unknown register,
 * {@code tail}) is refused, and so is an auipc that is not the first half of a pair.
 */
final class FragmentChecks {
    private FragmentChecks() {}

    /** Checks the code {@code bytes} (decoded as {@code ops}, with the {@code fixups} found). */
    static void check(Insertion insertion, Opcode[] ops, byte[] bytes, List<Fixup> fixups, FragmentSymbols symbols) {
        String name = insertion.fragmentName();
        long laRegister = -1; // the register the previous instruction pair loaded with a known function's address
        for (int p = 0; p < bytes.length; ) {
            Opcode op = ops[p];
            int bits = FragmentAssembler.bits(op, bytes, p);
            Fixup fixup = fixupAt(fixups, p);
            long loaded = -1;
            if (op == Rv.AUIPC) {
                if (!FragmentAssembler.isLowPart(ops, bytes, p)) {
                    throw new PatchException(Reason.FRAGMENT_USES_PC, name + ": auipc at fragment offset " + p
                            + " is not followed by the instruction that completes it (same register, a 12-bit offset); "
                            + "fragments may not use the pc otherwise");
                }
                Opcode low = ops[p + 4];
                int lowBits = u32(bytes, p + 4);
                if (low == Rv.JALR) {
                    checkTransfer(name, p, lowBits, low.operand(lowBits, Operand.RD) != 0, fixup, bytes.length, symbols, "auipc/jalr");
                } else if (fixup != null && low.operand(lowBits, Operand.RD) == low.operand(lowBits, Operand.RS1)
                        && symbols.isKnownFunction(fixup.target(), fixup.depends())) {
                    loaded = low.operand(lowBits, Operand.RD);
                }
                laRegister = loaded;
                p += 8;
                continue;
            }
            ControlFlow flow = op.controlFlow(bits);
            if (op.hasBranchTarget()) {
                boolean links = flow == ControlFlow.CALL;
                if (fixup != null) {
                    checkTransfer(name, p, bits, links, fixup, bytes.length, symbols, op.mnemonic());
                } else {
                    long t = p + op.branchOffset(bits);
                    if (t < 0 || t > bytes.length) {
                        throw leaves(name, op.mnemonic(), p, "");
                    }
                }
            } else if (flow == ControlFlow.RETURN || flow == ControlFlow.INDIRECT_JUMP) {
                throw leaves(name, op.mnemonic(), p, " (a return or an indirect jump)");
            } else if (flow == ControlFlow.INDIRECT_CALL) {
                boolean known = laRegister >= 0 && op.operand(bits, Operand.RS1) == laRegister
                        && (!op.has(Operand.IMM) || op.operand(bits, Operand.IMM) == 0);
                if (!known) {
                    throw leaves(name, op.mnemonic(), p, " (a call through a register not loaded with a known function's "
                            + "address by the instruction pair before it)");
                }
            }
            laRegister = loaded;
            p += op.size();
        }
    }

    /** A jump or call whose target {@code fixup} describes (null: a target that moves with the fragment). */
    private static void checkTransfer(String name, int p, int bits, boolean links, Fixup fixup, int length,
                                      FragmentSymbols symbols, String what) {
        if (fixup == null) {
            return; // a target inside the fragment: its words do not change
        }
        if (!links) {
            throw leaves(name, what, p, " (a jump out; only calls to known functions may leave, and they come back)");
        }
        if (!symbols.isKnownFunction(fixup.target(), fixup.depends())) {
            throw leaves(name, what, p, " (a call to 0x" + Long.toHexString(fixup.target())
                    + ", which is not the entry of a function of the binary or of the runtime)");
        }
    }

    private static Fixup fixupAt(List<Fixup> fixups, int p) {
        for (Fixup f : fixups) {
            if (f.offset() == p) {
                return f;
            }
        }
        return null;
    }

    private static PatchException leaves(String name, String what, int p, String why) {
        return new PatchException(Reason.FRAGMENT_LEAVES_ITSELF, name + ": " + what + " at fragment offset " + p
                + " leaves the fragment" + why + "; fragments may branch only within themselves or to their end, or call a "
                + "known function");
    }
}
