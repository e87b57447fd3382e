package dev.splice.patch;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.MovedFunction.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The instruction boundaries of a function where an insertion is accepted. */
final class InsertionPoints {
    private InsertionPoints() {}

    /** The accepted insertion addresses of {@code f}, in order; throws the refusal when {@code f} cannot move. */
    static List<Long> of(ElfFile elf, Function f) {
        Input in = Input.read(elf);
        MovedCode moved = new MovedCode(in.file());
        MovedFunction m = new MovedFunction(f);
        moved.put(m);
        new FunctionDecoder(in, moved, Map.of()).decode(m);
        List<Long> out = new ArrayList<>();
        for (Item i : m.items) {
            if (i.kind != Kind.FALLTHROUGH && InsertionRules.refusalAt(m, i.oldAddress) == null) {
                out.add(i.oldAddress);
            }
        }
        return out;
    }
}
