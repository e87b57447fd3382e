package dev.splice.patch;

import dev.splice.elf.Function;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.PatchException.Reason;
import java.util.ArrayList;
import java.util.List;

/**
 * The old entry of every moved function becomes a jump to its copy: {@code jal x0} when in range,
 * else {@code auipc t1; jr t1} (t1 may be clobbered at a function entry: the psABI's tail calls do
 * the same). The rest of the old body is zeroed ({@code unimp}): a reference Splice missed traps
 * instead of running old code.
 */
final class Trampolines {
    private final Input in;
    private final MovedCode moved;

    Trampolines(Input in, MovedCode moved) {
        this.in = in;
        this.moved = moved;
    }

    /** The old bodies with their jumps, as patches of the input image. */
    List<Patch> write() {
        List<Patch> out = new ArrayList<>(moved.functions().size());
        for (MovedFunction m : moved.functions()) {
            long from = m.function.address();
            long offset = target(m) - from;
            byte[] body = new byte[(int) m.function.size()];
            if (BranchForm.JAL.reaches(offset)) {
                BranchForm.JAL.encodeJump(0, offset, body, 0);
            } else if (body.length >= BranchForm.FAR_JUMP.size()) {
                BranchForm.FAR_JUMP.encodeJump(0, offset, body, 0);
            } else {
                throw new PatchException(Reason.TOO_SMALL, in.file() + ": function '" + m.function.name() + "' has "
                        + body.length + " bytes, too few for a jump to its copy at 0x" + Long.toHexString(m.newStart),
                        m.function.address());
            }
            out.add(new Patch(from, body));
        }
        return out;
    }

    /**
     * The offset from the old entry of {@code m} of the instruction that jumps to the copy: 0 for
     * {@code jal x0}, 4 for the {@code jr t1} after the {@code auipc} (what {@link #write} writes).
     */
    long jumpOffset(MovedFunction m) {
        return BranchForm.JAL.reaches(target(m) - m.function.address()) ? 0 : 4;
    }

    /**
     * Where the old entry of {@code m} jumps: where references to the entry go, unless code before
     * the function may fall through into it; then the fragment runs, as fall-through requires.
     */
    long target(MovedFunction m) {
        long start = m.function.address();
        return mayFallInto(start) ? moved.mapFallThrough(start) : moved.mapBranchTarget(start);
    }

    /** False only when a function ends exactly at {@code start} with an unconditional jump or return. */
    private boolean mayFallInto(long start) {
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
}
