package dev.splice.patch;

import dev.splice.cfg.Liveness;
import dev.splice.cfg.riscv.RiscVLiveness;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import dev.splice.patch.PatchException.Reason;
import java.util.ArrayList;
import java.util.List;

/**
 * The second stage of insertion: the new addresses. The moved functions go one after another,
 * 8-byte aligned, into the new section; branch relaxation widens the {@link BranchForm} of every
 * branch and jump that cannot reach its target until all reach (forms only grow, so it converges).
 * A far jump writes t1 where the psABI makes it dead (tail calls, after a call), else a
 * caller-saved register that liveness proves dead before the jump, else it is refused.
 */
final class Layout {
    private final Input in;
    private final MovedCode moved;
    private final FragmentAssembler fragments;
    private final DataArea data;
    /** Liveness of the input functions that needed it (rarely: only for jumps out of reach). */
    private final FunctionLiveness liveness;

    Layout(Input in, MovedCode moved, FragmentAssembler fragments, DataArea data) {
        this.in = in;
        this.moved = moved;
        this.fragments = fragments;
        this.data = data;
        this.liveness = new FunctionLiveness(in);
    }

    /** Gives every fragment its template fields, its code and its size (assembled once per distinct text). */
    void prepareFragments() {
        for (MovedFunction m : moved.functions()) {
            for (Item frag : m.fragments.values()) {
                PointFields[] points = new PointFields[frag.insertions.size()];
                long offset = frag.oldAddress - m.function.address();
                for (int k = 0; k < points.length; k++) {
                    int id = frag.firstId < 0 ? -1 : frag.firstId + k;
                    points[k] = new PointFields(frag.oldAddress, m.function.name(), offset, id, data.counter(id));
                }
                frag.points = points;
                fragments.prepare(frag, points);
            }
        }
    }

    /**
     * Assigns every item its new address and form, the first function at {@code base}; returns the
     * end of the code. {@link #prepareFragments} comes first.
     */
    long place(long base) {
        // Only branches, jumps and jumps back can grow: the relaxation rounds revisit just those, in the same order.
        List<Item> growable = new ArrayList<>();
        List<MovedFunction> owners = new ArrayList<>();
        for (MovedFunction m : moved.functions()) {
            for (Item i : m.items) {
                if (i.kind == Kind.BRANCH || i.kind == Kind.JUMP || i.kind == Kind.FALLTHROUGH) {
                    growable.add(i);
                    owners.add(m);
                }
            }
        }
        // Each target is looked up once, in the first round (in the same order, so the same refusal comes first):
        // later rounds read the new address of the item found, or the fixed address of code that stays.
        Target[] targets = new Target[growable.size()];
        for (int round = 0; ; round++) {
            long at = base;
            for (MovedFunction m : moved.functions()) {
                at = (at + 7) & -8;
                m.newStart = at;
                for (Item i : m.items) {
                    i.newAddress = at;
                    at += i.size();
                }
                m.newSize = at - m.newStart;
            }
            boolean grown = false;
            for (int k = 0; k < growable.size(); k++) {
                Item i = growable.get(k);
                if (targets[k] == null) {
                    targets[k] = target(i);
                }
                grown |= widenIfOutOfReach(owners.get(k), i, targets[k].address());
            }
            if (!grown) {
                return at;
            }
            if (round > 64) {
                throw new IllegalStateException("branch relaxation does not converge");
            }
        }
    }

    /**
     * Where a branch, jump or jump back goes in the new code: the new address of {@code item} (the
     * moved instruction or fragment {@link MovedCode} maps the target to), else the target itself.
     */
    private record Target(Item item, long fixed) {
        long address() {
            return item != null ? item.newAddress : fixed;
        }
    }

    private Target target(Item i) {
        Item to = i.kind == Kind.FALLTHROUGH ? moved.fallThroughItem(i.target) : moved.branchTargetItem(i.target);
        return new Target(to, i.target);
    }

    private boolean widenIfOutOfReach(MovedFunction m, Item i, long t) {
        if (i.form.reaches(t - i.newAddress)) {
            return false;
        }
        BranchForm wider = i.form.wider();
        if (wider != null && wider.needsScratch() && !mayClobberScratch(m, i)) {
            int dead = deadScratch(m, i);
            if (dead < 0) {
                throw new PatchException(Reason.OUT_OF_REACH, in.file() + ": " + what(m, i) + " in function '" + m.function.name()
                        + "' cannot reach 0x" + Long.toHexString(t) + " from its new address 0x" + Long.toHexString(i.newAddress)
                        + ": " + whyNoLongerForm(m, i), m.function.address());
            }
            i.scratch = dead;
        } else if (wider == null) {
            throw new PatchException(Reason.OUT_OF_REACH, in.file() + ": " + what(m, i) + " in function '" + m.function.name() + "' cannot reach 0x"
                    + Long.toHexString(t) + " from its new address 0x" + Long.toHexString(i.newAddress) + ": "
                    + whyNoLongerForm(m, i), m.function.address());
        }
        i.form = wider;
        return true;
    }

    /**
     * A far jump needs a register: rd itself for calls; t1 for jumps to another function's entry (a
     * tail call, which the psABI's {@code tail} also makes through t1, whether or not the callee
     * moved; a jump to the function's own entry may be a loop that keeps t1) and for the jump back
     * after a final call (t1 is dead after any call); nothing is known free otherwise.
     */
    private boolean mayClobberScratch(MovedFunction m, Item i) {
        return i.kind == Kind.JUMP && (i.rd != 0 || i.target != m.function.address() && in.functionStarts().contains(i.target))
                || i.kind == Kind.FALLTHROUGH && i.afterCall;
    }

    /**
     * A caller-saved register that register liveness ({@link RiscVLiveness}, over the input
     * function's graph with its landing pads) proves dead before the jump or conditional branch
     * {@code i} (so at its targets), for the far form's auipc; for the jump back at the end of a
     * function that falls into the next one, a register dead at that function's entry (its own
     * liveness: execution goes on there); -1 when there is none or {@code i} is a call. Only
     * caller-saved answers are used: docs/cfg.md says why the callee-saved ones are not.
     */
    private int deadScratch(MovedFunction m, Item i) {
        if (i.kind == Kind.FALLTHROUGH) {
            return liveness.deadAtEntry(i.target);
        }
        if (!(i.kind == Kind.JUMP && i.rd == 0 || i.kind == Kind.BRANCH)) {
            return -1;
        }
        Liveness live = liveness.of(m.function);
        int offset = (int) (i.oldAddress - m.function.address());
        if (live == null || !liveness.cfg(m.function).isInstructionStart(offset)) {
            return -1;
        }
        int[] dead = live.deadBefore(offset, FunctionLiveness.SCRATCH_CANDIDATES);
        return dead.length == 0 ? -1 : dead[0];
    }

    /** The branch, the jump, or (for the jump back) the instruction it follows, by original address. */
    private static String what(MovedFunction m, Item i) {
        return switch (i.kind) {
            case BRANCH -> "branch at 0x" + Long.toHexString(i.oldAddress);
            case FALLTHROUGH -> "the jump back after its last instruction, at 0x"
                    + Long.toHexString(m.items.get(m.items.size() - 2).oldAddress) + ",";
            default -> "jump at 0x" + Long.toHexString(i.oldAddress);
        };
    }

    /** Why {@code i} has no form that reaches farther, in the words of its kind. */
    private String whyNoLongerForm(MovedFunction m, Item i) {
        return switch (i.kind) {
            case BRANCH -> "a conditional branch reaches 1 MiB at most (inverted, over a jal) without a free register, and "
                    + "liveness finds no dead caller-saved register before it";
            case FALLTHROUGH -> "the jump back to the code that follows the function needs a free register, and none is known"
                    + " (it does not follow a call, and liveness finds no dead caller-saved register at the entry of the function after it)";
            default -> "a long jump needs a free register, and none is known (the target is "
                    + (i.target == m.function.address() ? "the function's own entry, maybe a loop's head" : "not a function entry")
                    + "; liveness finds no dead caller-saved register before the jump)";
        };
    }
}
