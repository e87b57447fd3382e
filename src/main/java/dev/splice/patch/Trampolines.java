package dev.splice.patch;

import dev.splice.elf.Function;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.PatchException.Reason;
import java.util.ArrayList;
import java.util.List;

/**
 * The old entry of every moved function becomes a jump to its copy: {@code jal x0} when in range,
 * else {@code auipc t1; jr t1} (t1 may be clobbered at a function entry: the psABI's tail calls do
 * the same). A function too small for that jump (under 8 bytes, out of {@code jal}'s reach; a
 * 2-byte one takes {@code c.j} when in reach) gets no jump at all, which is exact only when its
 * old entry is no longer used: every reference to it was retargeted (none kept going through the
 * old entry, {@link #useOldEntry}; no GOT slot holds it) and no code before it may fall into it;
 * otherwise it is refused.
 * The rest of the old body is zeroed ({@code unimp}): a reference Splice missed traps instead of
 * running old code.
 */
final class Trampolines {
    private final Input in;
    private final MovedCode moved;
    /** The references that still go through an old entry, by function (the first one found). */
    private final java.util.Map<MovedFunction, String> oldEntryUsers = new java.util.concurrent.ConcurrentHashMap<>();
    /** The entries loaded from GOT slots ({@link TinyFunctions#gotLoaded}), found when first needed. */
    private java.util.Set<Long> gotLoaded;

    Trampolines(Input in, MovedCode moved) {
        this.in = in;
        this.moved = moved;
    }

    /**
     * Notes that the reference {@code where} still goes through the old entry of {@code m} (it
     * cannot reach the copy): the old entry must hold its jump then.
     */
    void useOldEntry(MovedFunction m, String where) {
        oldEntryUsers.putIfAbsent(m, where);
    }

    /**
     * The old bodies with their jumps, as patches of the input image; called after the references
     * were retargeted ({@link #useOldEntry}). Refuses a function too small for its jump whose old
     * entry is still used.
     */
    List<Patch> write() {
        List<Patch> out = new ArrayList<>(moved.functions().size());
        for (MovedFunction m : moved.functions()) {
            long from = m.function.address();
            long offset = target(m) - from;
            byte[] body = new byte[(int) m.function.size()];
            BranchForm form = jumpForm(m);
            if (form != null) {
                form.encodeJump(0, offset, body, 0);
            } else {
                String user = oldEntryUsers.get(m);
                if (user == null && mayFallIntoTiny(in, a -> moved.startingAt(a) != null, from)) {
                    user = "code before it may fall through into it";
                }
                if (user == null) {
                    if (gotLoaded == null) {
                        gotLoaded = TinyFunctions.gotLoaded(in);
                    }
                    if (gotLoaded.contains(from)) {
                        user = TinyFunctions.GOT_USER;
                    }
                }
                if (user != null) {
                    throw new PatchException(Reason.TOO_SMALL, in.file() + ": function '" + m.function.name() + "' (0x"
                            + Long.toHexString(from) + ") has " + body.length + " bytes, too few for a jump to its copy at 0x"
                            + Long.toHexString(m.newStart) + ", and its old entry is still used: " + user, from);
                }
            }
            out.add(new Patch(from, body));
        }
        return out;
    }

    /**
     * The jump at the old entry of {@code m}: {@code jal x0} when it reaches, else {@code c.j}
     * for a 2-byte function when it reaches, else the far jump when the body holds it, else null
     * (no jump: {@link #write} checks that nothing uses the old entry).
     */
    BranchForm jumpForm(MovedFunction m) {
        long offset = target(m) - m.function.address();
        long size = m.function.size();
        if (size >= BranchForm.JAL.size() && BranchForm.JAL.reaches(offset)) {
            return BranchForm.JAL;
        }
        if (size >= BranchForm.FAR_JUMP.size()) {
            return BranchForm.FAR_JUMP;
        }
        return size >= BranchForm.C_JUMP.size() && BranchForm.C_JUMP.reaches(offset) ? BranchForm.C_JUMP : null;
    }

    /**
     * The offset from the old entry of {@code m} of the instruction that jumps to the copy: 4 for
     * the {@code jr t1} after the {@code auipc}, else 0 (what {@link #write} writes).
     */
    long jumpOffset(MovedFunction m) {
        return jumpForm(m) == BranchForm.FAR_JUMP ? 4 : 0;
    }

    /**
     * Where the old entry of {@code m} jumps: where references to the entry go, unless code before
     * the function may fall through into it; then the fragment runs, as fall-through requires.
     */
    long target(MovedFunction m) {
        long start = m.function.address();
        return mayFallInto(in, moved, start) ? moved.mapFallThrough(start) : moved.mapBranchTarget(start);
    }

    /**
     * False only when a function of {@code in} ends exactly at {@code start} with an unconditional
     * jump or return ({@code moved} may hold it decoded already).
     */
    static boolean mayFallInto(Input in, MovedCode moved, long start) {
        for (Function p : in.elf().functionContaining(start - 1).stream().toList()) {
            if (p.endAddress() != start || p.size() < 2 || !p.section().isExecutable()) {
                return true;
            }
            MovedFunction decoded = moved.startingAt(p.address());
            if (decoded != null && decoded.function.address() == p.address() && decoded.function.size() == p.size()
                    && !decoded.instructions.values().isEmpty()) {
                // Moved too, so decoded already (every instruction valid): its last instruction decides.
                List<Item> code = decoded.instructions.values();
                return FunctionDecoder.canFallThrough(code.get(code.size() - 1));
            }
            CodeWalk walk = new CodeWalk(in.image(), in.decoder(), p.address(), p.endAddress());
            boolean fallsThrough = true;
            while (walk.next()) {
                if (walk.size == 0 || walk.op == null) {
                    return true;
                }
                if (walk.at + walk.size == p.endAddress()) {
                    fallsThrough = Rv.fallsThrough(walk.op, walk.bits);
                }
            }
            return fallsThrough;
        }
        return true;
    }

    /**
     * The function right before {@code start}: of the functions at the highest address below it, the
     * last that ends exactly at {@code start}, else the first. Found by binary search (bulk rewrites
     * ask for every tiny function: a walk from the first function was quadratic); the walk is kept
     * for address lists that are not sorted the signed way (addresses with the top bit set).
     */
    static Function lastBefore(List<Function> functions, long start) {
        int n = functions.size();
        if (n > 0 && functions.get(n - 1).address() < 0) {
            Function before = null;
            for (Function f : functions) { // in (unsigned) address order
                if (f.address() >= start) {
                    break;
                }
                if (before == null || f.address() > before.address() || f.endAddress() == start) {
                    before = f;
                }
            }
            return before;
        }
        int lo = 0; // the first function at or above start
        int hi = n;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (functions.get(mid).address() < start) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        int end = lo;
        if (end == 0) {
            return null;
        }
        long address = functions.get(end - 1).address();
        int first = end - 1;
        while (first > 0 && functions.get(first - 1).address() == address) {
            first--;
        }
        Function before = functions.get(first);
        for (int i = first + 1; i < end; i++) {
            if (functions.get(i).endAddress() == start) {
                before = functions.get(i);
            }
        }
        return before;
    }

    /**
     * Whether code that stays may fall through into {@code start}, the entry of a function too
     * small for a jump: false when the function before it ends exactly there and moves ({@code
     * moves} tells by its start; its copy's fall-through goes to the copy of what follows), or ends
     * with an unconditional jump or return; a function symbol without a size (crtstuff's {@code
     * frame_dummy}) counts when it is the last one before {@code start} and a linear walk from it
     * ends exactly there. True in every other case. Used only for functions too small for a jump
     * (the target of other old entries stays as {@link #mayFallInto} has it).
     */
    static boolean mayFallIntoTiny(Input in, java.util.function.LongPredicate moves, long start) {
        Function before = lastBefore(in.elf().functions(), start);
        if (before == null || !before.section().isExecutable()) {
            return true;
        }
        if (before.size() > 0) {
            if (before.endAddress() != start) {
                return true;
            }
            return !moves.test(before.address()) && mayFallInto(in, new MovedCode(in.file()), start);
        }
        if (start - before.address() > 4096 || in.elf().functionContaining(start).map(Function::section).orElse(null) != before.section()) {
            return true;
        }
        CodeWalk walk = new CodeWalk(in.image(), in.decoder(), before.address(), start);
        boolean fallsThrough = true;
        while (walk.next()) {
            if (walk.size == 0 || walk.op == null) {
                return true;
            }
            fallsThrough = Rv.fallsThrough(walk.op, walk.bits);
        }
        return fallsThrough;
    }
}
