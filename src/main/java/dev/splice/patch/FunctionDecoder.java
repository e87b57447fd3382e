package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_CALL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_CALL_PLT;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_GOT_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_JAL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_LO12_I;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_LO12_S;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_JUMP;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_LUI;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLS_GD_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLS_GOT_HI20;

import dev.splice.elf.Function;
import dev.splice.elf.reloc.RiscVRelocations;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import dev.splice.patch.MovedFunction.Partner;
import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;
import java.util.List;
import java.util.Map;

/**
 * Decodes a function that moves into its items (instructions, with the fragments before them and
 * the jump back after them) and pairs every auipc with the instructions that complete it, refusing
 * code whose use of the pc or relocations it cannot follow.
 */
final class FunctionDecoder {
    private final Input in;
    private final String file;
    private final MovedCode moved;
    /** Bulk mode: functions decoded already ({@link MovableFunctions}), taken over once each; else empty. */
    private final Map<Long, MovedFunction> predecoded;

    /** A decoder for the functions of {@code moved}; {@code predecoded} may hold some of them decoded already. */
    FunctionDecoder(Input in, MovedCode moved, Map<Long, MovedFunction> predecoded) {
        this.in = in;
        this.file = in.file();
        this.moved = moved;
        this.predecoded = predecoded;
    }

    /** Decodes {@code m} (whose fragments are claimed) into its items. */
    void decode(MovedFunction m) {
        Function f = m.function;
        MovedFunction next = moved.after(f.address());
        if (next != null && next.function.address() < f.endAddress()) {
            throw new PatchException(Reason.OVERLAPPING_FUNCTIONS, file + ": functions '" + f.name() + "' and '"
                    + next.function.name() + "' overlap");
        }
        MovedFunction known = predecoded.isEmpty() ? null : predecoded.remove(f.address());
        if (known != null && known.function.size() == f.size() && m.items.isEmpty()) {
            reuse(m, known);
            return;
        }
        FragmentCursor fragments = new FragmentCursor(m.fragments);
        CodeWalk code = new CodeWalk(in.image(), in.decoder(), f.address(), f.endAddress());
        while (code.next()) {
            long at = code.at;
            if (code.size == 0) {
                throw new PatchException(Reason.DATA_IN_CODE, file + ": function '" + f.name() + "' holds bytes at 0x"
                        + Long.toHexString(at) + " that are not an instruction; data in code is not moved");
            }
            if (code.op == null) {
                throw new PatchException(Reason.DATA_IN_CODE, file + ": function '" + f.name() + "': 0x"
                        + Long.toHexString(at) + " holds no valid instruction of " + in.target().source()
                        + "; data in code is not moved");
            }
            Item item = classify(file, code.op, code.bits, code.size, at);
            Item frag = fragments.at(at);
            if (frag != null) {
                m.items.add(frag);
                item.fragment = frag;
            }
            m.items.add(item);
            m.instructions.put(at, item);
            if (item.kind == Kind.AUIPC || Rv.isLoadReserved(code.op)) {
                m.addSequenceStart(item);
            }
        }
        if (m.items.isEmpty()) {
            // A forged section table can give a function no bytes in the file to decode.
            throw new PatchException(Reason.MALFORMED_INPUT, file + ": function '" + f.name() + "' at 0x"
                    + Long.toHexString(f.address()) + " has no bytes in the file", f.address());
        }
        requireFragmentsAtBoundaries(m);
        Item last = m.items.get(m.items.size() - 1);
        if (canFallThrough(last) && f.endAddress() >= f.section().endAddress()) {
            // Nothing follows in the code section: the copy traps (unimp) where the original would run off its section.
            Item trap = new Item(Kind.PLAIN, f.endAddress(), 4);
            trap.bits = 0;
            m.items.add(trap);
        } else if (canFallThrough(last)) {
            Item back = new Item(Kind.FALLTHROUGH, f.endAddress(), 4);
            back.rd = 0;
            back.target = f.endAddress();
            back.form = BranchForm.JAL;
            back.afterCall = endsWithCall(m.items);
            m.items.add(back);
        }
        pairAndCheckRelocations(m);
    }

    /**
     * {@link #decode} for a function decoded already (bulk mode): the same items with the fragments
     * woven in. Of the checks, only those that depend on which functions move run again; the others
     * passed when it was decoded.
     */
    private void reuse(MovedFunction m, MovedFunction known) {
        Function f = m.function;
        FragmentCursor fragments = new FragmentCursor(m.fragments);
        for (Item item : known.items) {
            if (known.instructions.get(item.oldAddress) == item) {
                Item frag = fragments.at(item.oldAddress);
                if (frag != null) {
                    m.items.add(frag);
                    item.fragment = frag;
                }
                m.instructions.put(item.oldAddress, item);
            }
            m.items.add(item);
        }
        m.sequenceStarts = known.sequenceStarts;
        requireFragmentsAtBoundaries(m);
        RelocationIndex relocations = in.relocations();
        int k = relocations.firstAt(f.address());
        for (Item item : m.instructions.values()) {
            while (k < relocations.size() && relocations.offset(k) < item.oldAddress) {
                k++;
            }
            for (; k < relocations.size() && relocations.offset(k) == item.oldAddress; k++) {
                Reloc r = relocations.get(k);
                int type = r.type();
                if ((type == R_RISCV_HI20 || type == R_RISCV_RVC_LUI || type == R_RISCV_LO12_I || type == R_RISCV_LO12_S)
                        && moved.find(r.value()) != null) {
                    // Blames this function: left in place, its lui is retargeted (AbsoluteAddressReference).
                    throw new PatchException(Reason.UNSUPPORTED_RELOCATION, refuse(item, r, Reason.UNSUPPORTED_RELOCATION,
                            "takes the absolute address of moved code (lui-based); not handled").getMessage(), f.address());
                }
            }
        }
    }

    /**
     * A function's fragments in address order, met as the decoder walks its instructions (which come
     * in address order): no lookup by a boxed address per instruction, as a map of a function with a
     * fragment at every block would need.
     */
    private static final class FragmentCursor {
        private final long[] addresses;
        private final Item[] items;
        private int next;

        FragmentCursor(Map<Long, Item> fragments) {
            addresses = new long[fragments.size()];
            int k = 0;
            for (long a : fragments.keySet()) {
                addresses[k++] = a;
            }
            java.util.Arrays.sort(addresses);
            items = new Item[addresses.length];
            for (k = 0; k < addresses.length; k++) {
                items[k] = fragments.get(addresses[k]);
            }
        }

        /** The fragment before the instruction at {@code address}, or null; addresses come in ascending order. */
        Item at(long address) {
            while (next < addresses.length && addresses[next] < address) {
                next++;
            }
            return next < addresses.length && addresses[next] == address ? items[next] : null;
        }
    }

    private void requireFragmentsAtBoundaries(MovedFunction m) {
        for (Map.Entry<Long, Item> e : m.fragments.entrySet()) {
            if (!m.instructions.containsKey(e.getKey())) {
                throw new PatchException(Reason.NOT_AN_INSTRUCTION_BOUNDARY, e.getValue().insertions.get(0).fragmentName()
                        + ": 0x" + Long.toHexString(e.getKey()) + " is not an instruction boundary of function '"
                        + m.function.name() + "'");
            }
        }
    }

    /** False when the original instruction {@code last} never continues with the one after it. */
    /**
     * Whether the last instruction that does something is a call through ra: only breakpoints
     * (which read and write no register) may follow it, as the ebreak after {@code _start}'s call
     * of {@code __libc_start_main}. Then t1 is dead where the code falls through.
     */
    private static boolean endsWithCall(List<Item> items) {
        for (int k = items.size() - 1; k >= 0; k--) {
            Item i = items.get(k);
            if (i.kind != Kind.FRAGMENT && !Rv.isBreakpoint(i.op)) {
                return Rv.callsThroughRa(i.op, i.bits);
            }
        }
        return false;
    }

    static boolean canFallThrough(Item last) {
        return Rv.fallsThrough(last.op, last.bits);
    }

    /**
     * The item of one instruction at {@code at}: a branch or jump (in the {@link BranchForm} it has),
     * an auipc, or plain; refuses pc-relative instructions that no form re-encodes.
     */
    static Item classify(String file, Opcode op, int bits, int size, long at) {
        Item item;
        if (op.hasBranchTarget()) {
            Opcode condition = Rv.condition(op);
            if (condition != null) {
                item = new Item(Kind.BRANCH, at, size);
                item.branch = condition;
                item.rs1 = (int) op.operand(bits, Operand.RS1);
                item.rs2 = (int) op.operand(bits, Operand.RS2);
                item.form = size == 2 ? BranchForm.C_BRANCH : BranchForm.BRANCH;
            } else if (op == Rv.JAL || op == Rv.C_J) {
                item = new Item(Kind.JUMP, at, size);
                item.rd = (int) op.operand(bits, Operand.RD);
                item.form = op == Rv.C_J ? BranchForm.C_JUMP : BranchForm.JAL;
            } else {
                throw new PatchException(Reason.UNSUPPORTED_INSTRUCTION, file + ": 0x" + Long.toHexString(at)
                        + ": pc-relative instruction " + op.mnemonic() + " is not handled");
            }
            item.target = at + op.branchOffset(bits);
        } else if (op == Rv.AUIPC) {
            item = new Item(Kind.AUIPC, at, size);
            item.rd = (int) op.operand(bits, Operand.RD);
        } else {
            item = new Item(Kind.PLAIN, at, size);
        }
        item.op = op;
        item.bits = bits;
        return item;
    }

    /** Pairs every auipc with the instructions that complete it; refuses relocations it cannot follow. */
    private void pairAndCheckRelocations(MovedFunction m) {
        Function f = m.function;
        RelocationIndex relocations = in.relocations();
        int k = relocations.firstAt(f.address());
        for (Item item : m.instructions.values()) {
            while (k < relocations.size() && relocations.offset(k) < item.oldAddress) {
                k++;
            }
            boolean hi = false;
            for (; k < relocations.size() && relocations.offset(k) == item.oldAddress; k++) {
                Reloc r = relocations.get(k);
                int type = r.type();
                if (RelocationIndex.isPcrelLo(type)) {
                    continue;
                }
                switch (type) {
                    case R_RISCV_BRANCH, R_RISCV_RVC_BRANCH, R_RISCV_JAL, R_RISCV_RVC_JUMP -> {
                        if (item.kind != Kind.BRANCH && item.kind != Kind.JUMP || item.target != r.value()) {
                            throw refuse(item, r, Reason.RELOCATION_MISMATCH, "does not match the instruction");
                        }
                    }
                    case R_RISCV_CALL, R_RISCV_CALL_PLT -> {
                        Item jalr = m.instructions.get(item.oldAddress + 4);
                        if (item.kind != Kind.AUIPC || jalr == null || jalr.op != Rv.JALR
                                || jalr.op.operand(jalr.bits, Operand.RS1) != item.rd) {
                            throw refuse(item, r, Reason.RELOCATION_MISMATCH, "is not on an auipc followed by its jalr");
                        }
                        long t = item.oldAddress + Rv.upper(item.op, item.bits) + jalr.op.operand(jalr.bits, Operand.IMM);
                        item.addPartner(new Partner(jalr, t));
                        hi = true;
                    }
                    case R_RISCV_PCREL_HI20, R_RISCV_GOT_HI20, R_RISCV_TLS_GOT_HI20, R_RISCV_TLS_GD_HI20 -> {
                        if (item.kind != Kind.AUIPC) {
                            throw refuse(item, r, Reason.RELOCATION_MISMATCH, "is not on an auipc");
                        }
                        for (Reloc lo : relocations.lowParts(item.oldAddress)) {
                            Item p = m.instructions.get(lo.offset());
                            if (p == null || p.oldSize != 4) {
                                throw new PatchException(Reason.UNSUPPORTED_RELOCATION, file + ": the low part of the auipc at 0x"
                                        + Long.toHexString(item.oldAddress) + " (" + RiscVRelocations.name(lo.type()) + " at 0x"
                                        + Long.toHexString(lo.offset()) + ") is not an instruction of function '" + f.name() + "'");
                            }
                            if (p.op.field(Operand.IMM) == null) {
                                throw refuse(item, r, Reason.RELOCATION_MISMATCH, "is completed by " + p.op.mnemonic() + " at 0x"
                                        + Long.toHexString(p.oldAddress) + ", which has no immediate for its low part");
                            }
                            long low = p.op.operand(p.bits, Operand.IMM);
                            item.addPartner(new Partner(p, item.oldAddress + Rv.upper(item.op, item.bits) + low));
                        }
                        if (item.partners.isEmpty()) {
                            throw refuse(item, r, Reason.RELOCATION_MISMATCH,
                                    "has no instruction completing the pair (no R_RISCV_PCREL_LO12 naming it)");
                        }
                        hi = true;
                    }
                    case R_RISCV_HI20, R_RISCV_RVC_LUI, R_RISCV_LO12_I, R_RISCV_LO12_S -> {
                        if (moved.find(r.value()) != null) {
                            throw refuse(item, r, Reason.UNSUPPORTED_RELOCATION,
                                    "takes the absolute address of moved code (lui-based); not handled");
                        }
                    }
                    default -> throw refuse(item, r, Reason.UNSUPPORTED_RELOCATION, "is not handled in moved code");
                }
            }
            if (item.kind == Kind.AUIPC && !hi) {
                throw new PatchException(Reason.UNKNOWN_PC_USE, file + ": auipc at 0x" + Long.toHexString(item.oldAddress)
                        + " in function '" + f.name() + "' has no R_RISCV_PCREL_HI20/CALL/GOT_HI20 relocation: its use of "
                        + "the pc is unknown, so the function cannot move");
            }
        }
    }

    private PatchException refuse(Item item, Reloc r, Reason reason, String why) {
        return new PatchException(reason, file + ": " + RiscVRelocations.name(r.type()) + " at 0x" + Long.toHexString(item.oldAddress)
                + " (symbol '" + r.symbolName() + "') " + why);
    }
}
