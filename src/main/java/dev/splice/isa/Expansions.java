package dev.splice.isa;

import java.util.HashMap;
import java.util.Map;

/** The 32-bit instruction each compressed instruction stands for (for the readable printer). */
final class Expansions {
    private Expansions() {}

    /** Expanded word per 16-bit parcel; 0 = not computed yet (no valid expansion is 0). */
    private static final int[] CACHE = new int[1 << 16];
    private static final Map<Opcode, Template> TEMPLATES = new HashMap<>();
    private static final TargetNamer OFFSET = (out, pc, target) -> out.append(target - pc);

    static int expand(Opcode op, int bits) {
        int parcel = bits & 0xffff;
        int cached = CACHE[parcel];
        if (cached != 0) {
            return cached;
        }
        Template t;
        synchronized (TEMPLATES) {
            t = TEMPLATES.computeIfAbsent(op, Expansions::template);
        }
        StringBuilder text = new StringBuilder();
        for (Template.Token tok : t.tokens()) {
            if (tok.isField()) {
                Printer.value(tok.field(), tok.field().value(parcel), 0, text, OFFSET);
            } else {
                text.append(tok.literal());
            }
        }
        try {
            int word = Encoder.assemble(op.expandsTo, text.toString(), 0, SymbolResolver.NONE);
            CACHE[parcel] = word;
            return word;
        } catch (OperandException e) {
            throw new IllegalStateException("table: " + op.mnemonic() + " does not expand: " + e.getMessage());
        }
    }

    private static Template template(Opcode op) {
        Map<String, Field> own = new HashMap<>();
        for (Field f : op.fields) {
            own.put(f.name, f);
        }
        String text = op.expansion;
        int sp = text.indexOf(' ');
        return Template.compile(sp < 0 ? "" : text.substring(sp + 1).strip(), own);
    }
}
