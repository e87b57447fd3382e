package dev.splice.patch;

import dev.splice.elf.Function;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import dev.splice.patch.PatchException.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Bulk mode's first step: the functions that can move on their own (decoded, relocations
 * understood, entry not inside a sequence, no fall-through at the end unless after a call or
 * into a function with a dead caller-saved register at its entry, which the far jump back may
 * write), decoded, and the others with the reason (a function under 8 bytes only when nothing
 * needs its old entry: {@link TinyFunctions}). Two halves are decoded on two cores and merged in order.
 */
final class MovableFunctions {
    private MovableFunctions() {}

    /** What the search finds: the functions that can move, decoded, in address order, and the others. */
    record Found(List<MovedFunction> decoded, List<Rewrite.Skipped> skipped) {}

    static Found find(Input in) {
        List<Function> functions = in.elf().functions();
        MovedCode none = new MovedCode(in.file());
        none.find(0); // builds the (empty) index of moved functions before two threads read it
        FunctionDecoder decoder = new FunctionDecoder(in, none, Map.of());
        // Decoding a function reads only what no longer changes. The halves' findings are merged in
        // order, as one pass would make them (a failure of the first half wins).
        int half = functions.size() / 2;
        Background<Found> second = Background.start("decode", () -> find(decoder, functions.subList(half, functions.size())));
        Found first = find(decoder, functions.subList(0, half));
        Found rest = second.join();
        List<MovedFunction> decoded = new ArrayList<>(first.decoded().size() + rest.decoded().size());
        List<Rewrite.Skipped> skipped = new ArrayList<>(first.skipped().size() + rest.skipped().size());
        for (Found part : List.of(first, rest)) {
            decoded.addAll(part.decoded());
            skipped.addAll(part.skipped());
        }
        keepFallingThroughWithoutScratch(in, decoded, skipped);
        TinyFunctions.keepUsedEntries(in, decoded, skipped);
        Phases.mark("find movable functions");
        return new Found(decoded, skipped);
    }

    private static Found find(FunctionDecoder decoder, List<Function> functions) {
        List<MovedFunction> decoded = new ArrayList<>();
        List<Rewrite.Skipped> skipped = new ArrayList<>();
        for (Function f : functions) {
            if (f.section() == null || !f.section().isExecutable() || f.section().isNobits() || f.size() <= 0) {
                continue;
            }
            if (SymbolMover.isOldBody(f.name())) { // an earlier pass's old body: a jump to its copy, then zeros
                skipped.add(new Rewrite.Skipped(f.name(), f.address(), Reason.ALREADY_REWRITTEN, f.name()
                        + ": the old body of a function an earlier pass moved (its copy is the function)"));
                continue;
            }
            MovedFunction m = new MovedFunction(f);
            try {
                decoder.decode(m);
                InsertionRules.Refusal refusal = InsertionRules.refusalAt(m, f.address());
                if (refusal != null) {
                    throw new PatchException(refusal.reason(), refusal.message());
                }
                decoded.add(m);
            } catch (PatchException e) {
                skipped.add(new Rewrite.Skipped(f.name(), f.address(), e.reason(), e.getMessage()));
            }
        }
        return new Found(decoded, skipped);
    }

    /**
     * Leaves in place each function that falls through into the code after it (not after a call)
     * when no caller-saved register is dead at the entry of the function there
     * ({@link FunctionLiveness#deadAtEntry}): its copy's jump back, out of a {@code jal}'s reach,
     * would have no register to go through.
     */
    private static void keepFallingThroughWithoutScratch(Input in, List<MovedFunction> decoded, List<Rewrite.Skipped> skipped) {
        FunctionLiveness liveness = null;
        for (java.util.Iterator<MovedFunction> it = decoded.iterator(); it.hasNext(); ) {
            MovedFunction m = it.next();
            Item end = m.items.get(m.items.size() - 1);
            if (end.kind != Kind.FALLTHROUGH || end.afterCall) {
                continue;
            }
            liveness = liveness != null ? liveness : new FunctionLiveness(in);
            if (liveness.deadAtEntry(end.target) < 0) {
                it.remove();
                skipped.add(new Rewrite.Skipped(m.function.name(), m.function.address(), Reason.FALLS_THROUGH, m.function.name()
                        + ": falls through into the code after it, and the jump back may not reach (no caller-saved register"
                        + " is dead at the entry of the function there)"));
            }
        }
    }
}
