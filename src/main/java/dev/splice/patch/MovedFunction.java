package dev.splice.patch;

import dev.splice.elf.Function;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One function that moves to the new code section: its decoded instructions, the fragments
 * inserted before some of them, and (after layout) every item's new address and form.
 */
final class MovedFunction {
    enum Kind { PLAIN, BRANCH, JUMP, AUIPC, FRAGMENT, FALLTHROUGH }

    /** One piece of the new body: an original instruction, a fragment, or the jump back to the code after the function. */
    static final class Item {
        final Kind kind;
        /** The original address (of the instruction; for a fragment, of the instruction it precedes; for the jump back, the function's end). */
        final long oldAddress;
        final int oldSize;
        int bits;
        byte[] bytes;
        /** Conditional branch: the full mnemonic (beq..bgeu); operands. */
        String branch;
        int rs1;
        int rs2;
        int rd;
        /** Branch and jump: the original absolute target. */
        long target;
        /**
         * 0: original size (compressed when it was), 1: full 32-bit form, 2: long form (branch: inverted
         * branch over jal; jump: auipc + jalr), 3 (branches only): inverted branch over auipc t1 + jr t1.
         */
        int form;
        long newAddress;
        /** AUIPC: the instructions completing the pair, with their original absolute targets. */
        final List<Partner> partners = new ArrayList<>();
        /** FRAGMENT: the parts (one per insertion at this address), assembled at newAddress. */
        final List<Insertion> insertions = new ArrayList<>();
        BranchTarget policy;
        /** FALLTHROUGH: the function ends with a call, after which t1 is dead (psABI: not preserved, not a result). */
        boolean afterCall;

        Item(Kind kind, long oldAddress, int oldSize) {
            this.kind = kind;
            this.oldAddress = oldAddress;
            this.oldSize = oldSize;
        }

        int size() {
            return switch (kind) {
                case FRAGMENT -> bytes.length;
                case BRANCH -> form == 0 ? oldSize : form == 1 ? 4 : form == 2 ? 8 : 12;
                case JUMP, FALLTHROUGH -> form == 0 ? oldSize : form == 1 ? 4 : 8;
                default -> oldSize;
            };
        }
    }

    /** An instruction using the low 12 bits of an auipc's value: its item, S-type or I-type, original target. */
    record Partner(Item item, boolean store, long target) {}

    final Function function;
    final List<Item> items = new ArrayList<>();
    final Map<Long, Item> instructions = new HashMap<>();
    final Map<Long, Item> fragments = new HashMap<>();
    long newStart;
    long newSize;

    MovedFunction(Function function) {
        this.function = function;
    }

    boolean contains(long address) {
        return address >= function.address() && address < function.endAddress();
    }
}
