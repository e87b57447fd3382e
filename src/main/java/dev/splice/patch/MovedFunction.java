package dev.splice.patch;

import dev.splice.elf.Function;
import dev.splice.isa.Opcode;
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
        /** An original instruction: its opcode and bits. */
        Opcode op;
        int bits;
        /** FRAGMENT: the code of each insertion and their total size (set by layout). */
        FragmentCode[] codes;
        int fragmentSize;
        /** FRAGMENT: the number of its first insertion ({@code {id}}; the others follow), -1 for the runtime's. */
        int firstId;
        /** FRAGMENT: the template fields of each insertion (set by layout). */
        PointFields[] points;
        /** Conditional branch: the 32-bit condition (beq..bgeu) it is or expands to; operands. */
        Opcode branch;
        int rs1;
        int rs2;
        int rd;
        /** Branch and jump: the original absolute target. */
        long target;
        /** Branch, jump and jump back: the form in the new code (the original one until layout widens it). */
        BranchForm form;
        /** A jump (rd x0) in the far form: the register its auipc writes, t1 unless liveness chose another dead one. */
        int scratch = Rv.T1;
        long newAddress;
        /** AUIPC: the instructions completing the pair, with their original absolute targets. */
        List<Partner> partners = List.of();
        /** FRAGMENT: the parts (one per insertion at this address), assembled at newAddress. */
        List<Insertion> insertions = List.of();
        /** An original instruction: the fragment inserted before it, if any (set when the function is decoded). */
        Item fragment;
        BranchTarget policy;
        /** FALLTHROUGH: the function ends with a call (breakpoints may follow it), after which t1 is dead (psABI: not preserved, not a result). */
        boolean afterCall;

        Item(Kind kind, long oldAddress, int oldSize) {
            this.kind = kind;
            this.oldAddress = oldAddress;
            this.oldSize = oldSize;
        }

        /** Most items have no partners and no insertions: their lists are made on the first add. */
        void addPartner(Partner p) {
            if (partners.isEmpty()) {
                partners = new ArrayList<>(2);
            }
            partners.add(p);
        }

        void addInsertion(Insertion i) {
            if (insertions.isEmpty()) {
                insertions = new ArrayList<>(1);
            }
            insertions.add(i);
        }

        int size() {
            return switch (kind) {
                case FRAGMENT -> fragmentSize;
                case BRANCH, JUMP, FALLTHROUGH -> form.size();
                default -> oldSize;
            };
        }
    }

    /** An instruction using the low 12 bits of an auipc's value (its immediate): its item and original target. */
    record Partner(Item item, long target) {}

    final Function function;
    final List<Item> items;
    final Instructions instructions;
    final Map<Long, Item> fragments = new HashMap<>();
    /** The instructions that start a sequence nothing may be inserted into (auipc, lr), in address order. */
    List<Item> sequenceStarts = List.of();
    /** The ranges {@link #sequenceStarts} guard, made on first use by {@link InsertionRules}. */
    InsertionRules.Guards guards;
    long newStart;
    long newSize;

    MovedFunction(Function function) {
        this.function = function;
        // Sized for the usual instruction density (about 3 bytes each with RVC), within reason for odd sizes.
        int expected = (int) Math.max(4, Math.min(function.size() / 3 + 4, 4096));
        this.items = new ArrayList<>(expected);
        this.instructions = new Instructions(function.address(), expected);
    }

    /** Adds the next sequence start (the list is made on the first: most functions have none or few). */
    void addSequenceStart(Item i) {
        if (sequenceStarts.isEmpty()) {
            sequenceStarts = new ArrayList<>(4);
        }
        sequenceStarts.add(i);
    }

    boolean contains(long address) {
        return address >= function.address() && address < function.endAddress();
    }

    /**
     * The original instructions by address, in a table indexed by the halfword offset from the
     * function's start (lookups without boxing or hashing; bulk rewrites do millions).
     * Instructions are added in address order, as the decoder finds them.
     */
    static final class Instructions {
        private final long start;
        private Item[] slots;
        private final List<Item> inOrder;

        Instructions(long start, int expected) {
            this.start = start;
            this.slots = new Item[expected * 3 / 2];
            this.inOrder = new ArrayList<>(expected);
        }

        Item get(long address) {
            long d = address - start;
            if (d < 0 || (d & 1) != 0 || (d >>> 1) >= slots.length) {
                return null;
            }
            return slots[(int) (d >>> 1)];
        }

        boolean containsKey(long address) {
            return get(address) != null;
        }

        /** Adds the instruction at {@code address}, which must lie after every one added before. */
        void put(long address, Item item) {
            long d = address - start;
            Item last = inOrder.isEmpty() ? null : inOrder.get(inOrder.size() - 1);
            if (d < 0 || (d & 1) != 0 || d > Integer.MAX_VALUE || last != null && last.oldAddress >= address) {
                throw new IllegalStateException("instruction at 0x" + Long.toHexString(address) + " out of order");
            }
            int slot = (int) (d >>> 1);
            if (slot >= slots.length) {
                slots = java.util.Arrays.copyOf(slots, Math.max(slot + 1, slots.length * 2));
            }
            slots[slot] = item;
            inOrder.add(item);
        }

        /** The instructions in address order. */
        List<Item> values() {
            return inOrder;
        }
    }
}
