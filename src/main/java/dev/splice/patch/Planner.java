package dev.splice.patch;

import dev.splice.elf.Function;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import dev.splice.patch.PatchException.Reason;
import java.util.List;
import java.util.Map;

/**
 * The first stage of insertion: which functions move and what goes where in them. Each insertion
 * claims the function around its address; the fragments at one address become one item; every
 * claimed function is decoded and its insertion points checked.
 */
final class Planner {
    private Planner() {}

    /**
     * The functions that move, decoded, with their fragments (numbered as {@link Insertions#numbered}
     * says; the {@code runtime}'s own insertions, such as the exit hook, after them, unnumbered);
     * {@code predecoded} (bulk mode) holds functions decoded already, which are taken over (and
     * removed from it); {@code fragments} says which registers each fragment writes (a fragment
     * that leaves a pc-relative pair's register alone may go inside the pair).
     */
    static MovedCode plan(Input in, List<Insertion> insertions, List<Insertion> runtime, Map<Long, MovedFunction> predecoded,
                          FragmentAssembler fragments) {
        MovedCode moved = new MovedCode(in.file());
        List<Insertion> numbered = Insertions.numbered(insertions);
        for (int id = 0; id < numbered.size(); id++) {
            claim(in, moved, numbered.get(id), id);
        }
        for (Insertion insertion : runtime) {
            claim(in, moved, insertion, -1);
        }
        FunctionDecoder decoder = new FunctionDecoder(in, moved, predecoded);
        for (MovedFunction m : moved.functions()) {
            decoder.decode(m);
        }
        for (MovedFunction m : moved.functions()) {
            InsertionRules.check(m, fragments);
        }
        return moved;
    }

    private static void claim(Input in, MovedCode moved, Insertion insertion, int id) {
        long a = insertion.address();
        Function f = in.elf().functionContaining(a).orElseThrow(() -> new PatchException(Reason.NOT_IN_FUNCTION,
                insertion.fragmentName() + ": address 0x" + Long.toHexString(a) + " is not inside a function of " + in.file()));
        if (f.section() == null || !f.section().isExecutable() || f.section().isNobits()) {
            throw new PatchException(Reason.NOT_CODE, insertion.fragmentName() + ": function '" + f.name()
                    + "' is not in a code section");
        }
        if (SymbolMover.isOldBody(f.name())) {
            throw new PatchException(Reason.ALREADY_REWRITTEN, insertion.fragmentName() + ": function '" + f.name() + "' at 0x"
                    + Long.toHexString(f.address()) + " is the old body of a function an earlier pass moved (a jump to its "
                    + "copy, then zeros): insert into the copy", f.address());
        }
        MovedFunction m = moved.add(f);
        if (m.function.size() != f.size()) {
            throw new PatchException(Reason.OVERLAPPING_FUNCTIONS, insertion.fragmentName() + ": functions overlap at 0x"
                    + Long.toHexString(f.address()));
        }
        Item frag = m.fragments.get(a);
        if (frag == null) {
            frag = new Item(Kind.FRAGMENT, a, 0);
            frag.policy = insertion.branchTarget();
            frag.firstId = id;
            m.fragments.put(a, frag);
        } else if (frag.policy != insertion.branchTarget()) {
            throw new PatchException(Reason.CONFLICTING_POLICIES, insertion.fragmentName() + ": insertions at 0x"
                    + Long.toHexString(a) + " disagree on the branch target policy (" + frag.policy + " and "
                    + insertion.branchTarget() + "); insertions at one address form one fragment");
        }
        frag.addInsertion(insertion);
    }
}
