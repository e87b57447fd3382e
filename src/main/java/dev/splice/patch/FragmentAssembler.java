package dev.splice.patch;

import static dev.splice.base.Le.u32;

import dev.splice.isa.Decoder;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import dev.splice.listing.Assembler;
import dev.splice.listing.Assembly;
import dev.splice.listing.ListingException;
import dev.splice.patch.FragmentCode.Fixup;
import dev.splice.patch.FragmentCode.Variable;
import dev.splice.patch.FragmentTemplate.Field;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.PatchException.Reason;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Assembles the fragments to insert, once per distinct text, and checks that they hold code only,
 * fit the binary's target and leave themselves only to call a known function (of the binary or
 * of the runtime) and come back.
 *
 * <p>A template's fields become symbols and it is assembled once, at a reference placement; the
 * assembler's fixups ({@link Assembly#fixups()}: auipc pairs, calls and jumps to names outside the
 * text) say which words follow the fragment's address, the runtime's address or a field
 * ({@link FragmentCode}); per point they are re-encoded, without assembling again. A template
 * whose fields are used otherwise (inside {@code li}, or in {@code %hi}) is assembled per distinct
 * substituted text instead, cached by that text; one with {@code {func}} once per function.
 * Comments are text too: a fragment that differs from another only in comments is assembled once
 * more, to the same bytes.
 */
final class FragmentAssembler {
    private final BinaryTarget target;
    private final Decoder decoder;
    private final FragmentSymbols symbols;
    /** Templates by text; null value: the text needs substitution per point. */
    private final Map<String, Template> templates;
    /** Texts with {@code {func}} replaced by the name (and the other fields by symbols), by text; null: not relocatable. */
    private final Map<String, FragmentCode> perFunction;
    /** Substituted texts by text. */
    private final Map<String, FragmentCode> substituted;
    private int assemblerRuns;

    /** What a fragment text became: the template and, when one code serves every point, that code. */
    private record Template(FragmentTemplate template, FragmentCode code) {}

    FragmentAssembler(BinaryTarget target, Decoder decoder, FragmentSymbols symbols) {
        this(target, decoder, symbols, new HashMap<>(), new HashMap<>(), new HashMap<>());
    }

    private FragmentAssembler(BinaryTarget target, Decoder decoder, FragmentSymbols symbols, Map<String, Template> templates,
                              Map<String, FragmentCode> perFunction, Map<String, FragmentCode> substituted) {
        this.target = target;
        this.decoder = decoder;
        this.symbols = symbols;
        this.templates = templates;
        this.perFunction = perFunction;
        this.substituted = substituted;
    }

    /** A copy for another attempt: it starts with what this one assembled so far. */
    FragmentAssembler copy() {
        return new FragmentAssembler(target, decoder, symbols, new HashMap<>(templates), new HashMap<>(perFunction),
                new HashMap<>(substituted));
    }

    /** {@return the names fragments may use} */
    FragmentSymbols symbols() {
        return symbols;
    }

    /** {@return how many times the assembler ran (for tests of the per-point cost)} */
    int assemblerRuns() {
        return assemblerRuns;
    }

    /** {@return whether the fragment text uses the template field {@code field}} */
    boolean uses(Insertion insertion, Field field) {
        return template(insertion).template.fields().contains(field);
    }

    /**
     * The integer registers the fragment text may change at any of its points
     * ({@link WrittenRegisters}); all of them when its code differs from point to point.
     */
    long writes(Insertion insertion) {
        Template t = template(insertion);
        return t.code != null ? t.code.writes() : WrittenRegisters.ALL;
    }

    /** The code of each insertion of {@code frag}, for its points' fields; sets the item's size. */
    void prepare(Item frag, PointFields[] points) {
        FragmentCode[] codes = new FragmentCode[frag.insertions.size()];
        int size = 0;
        for (int k = 0; k < codes.length; k++) {
            Insertion insertion = frag.insertions.get(k);
            Template t = template(insertion);
            codes[k] = t.code != null ? t.code : perPoint(insertion, t.template, points[k]);
            size += codes[k].size();
        }
        frag.codes = codes;
        frag.fragmentSize = size;
    }

    /** Writes {@code frag}'s code placed at its new address, for its points' fields, into {@code out} at {@code at}. */
    void place(Item frag, PointFields[] points, long runtimeAddress, byte[] out, int at) {
        long[] deltas = new long[Variable.values().length];
        long address = frag.newAddress;
        for (int k = 0; k < frag.codes.length; k++) {
            PointFields p = points[k];
            deltas[Variable.RUNTIME.ordinal()] = runtimeAddress - symbols.runtimeReference();
            deltas[Variable.ADDR.ordinal()] = p.address() - symbols.reference();
            deltas[Variable.OFFSET.ordinal()] = p.offset() - symbols.reference();
            deltas[Variable.ID.ordinal()] = p.id() - symbols.reference();
            deltas[Variable.COUNTER.ordinal()] = p.counter() - symbols.reference();
            FragmentCode code = frag.codes[k];
            code.writeTo(out, at, address, symbols.reference(), deltas, frag.insertions.get(k).fragmentName());
            at += code.size();
            address += code.size();
        }
    }

    private Template template(Insertion insertion) {
        Template t = templates.get(insertion.fragment());
        if (t == null) {
            FragmentTemplate parsed = FragmentTemplate.parse(insertion.fragment(), insertion.fragmentName());
            FragmentCode once = null;
            if (parsed.fields().isEmpty()) {
                once = assembleChecked(insertion, parsed.text(), true);
            } else if (!parsed.fields().contains(Field.FUNC)) {
                once = assembleChecked(insertion, parsed.symbolic(null), false);
            }
            t = new Template(parsed, once);
            templates.put(insertion.fragment(), t);
        }
        return t;
    }

    /** The code for one point of a template that one code cannot serve: per function, else per substituted text. */
    private FragmentCode perPoint(Insertion insertion, FragmentTemplate template, PointFields point) {
        if (template.fields().contains(Field.FUNC)) {
            String text = template.symbolic(point);
            FragmentCode code = perFunction.get(text);
            if (code == null && !perFunction.containsKey(text)) {
                code = assembleChecked(insertion, text, false);
                perFunction.put(text, code); // null too: this text needs substitution per point
            }
            if (code != null) {
                return code;
            }
        }
        return substituted(insertion, template.substitute(point));
    }

    private FragmentCode substituted(Insertion insertion, String text) {
        FragmentCode code = substituted.get(text);
        if (code == null) {
            code = assembleChecked(insertion, text, true);
            substituted.put(text, code);
        }
        return code;
    }

    /**
     * Assembles {@code text} at the reference placement, turns the assembler's fixups into the
     * words {@link FragmentCode} re-encodes per point, and checks the code; returns null when
     * {@code text} (with fields as symbols) cannot be relocated that way and {@code required} is false.
     */
    private FragmentCode assembleChecked(Insertion insertion, String text, boolean required) {
        if (text.contains("align")) {
            throw new PatchException(Reason.BAD_LISTING, insertion.fragmentName() + ": a fragment may not align "
                    + "(.align, .p2align, .balign): its bytes would depend on where it lands");
        }
        Assembly a = run(insertion, text, required);
        if (a == null) {
            return null;
        }
        byte[] ref = a.bytes();
        Opcode[] ops = decode(insertion, ref);
        List<Fixup> fixups = new ArrayList<>();
        List<dev.splice.listing.Fixup> placed = a.fixups();
        for (int k = 0; k < placed.size(); k++) {
            dev.splice.listing.Fixup f = placed.get(k);
            int depends = symbols.depends(f.symbol());
            long target = symbols.referenceValue(f.symbol()) + f.addend();
            int p = f.offset();
            switch (f.kind()) {
                case CALL -> fixups.add(new Fixup(p, ops[p + 4], target, depends));
                case PCREL_HI20 -> {
                    dev.splice.listing.Fixup low = k + 1 < placed.size() ? placed.get(k + 1) : null;
                    if (low == null || low.anchor() != p || low.offset() != p + 4 || !isLowPart(ops, ref, p)) {
                        return unrelocatable(insertion, required, p); // a %pcrel_lo apart from its auipc
                    }
                    fixups.add(new Fixup(p, ops[p + 4], target, depends));
                    k++;
                }
                case JAL, BRANCH, RVC_BRANCH, RVC_JUMP -> fixups.add(new Fixup(p, null, target, depends)); // checked below
                default -> {
                    if (depends != 0) { // an absolute use (%hi, %lo, a data word) of something that moves
                        return unrelocatable(insertion, required, p);
                    }
                }
            }
        }
        fixups.removeIf(f -> f.depends() == Variable.ADDRESS.bit); // a target that moves with the fragment keeps its words
        try {
            FragmentChecks.check(insertion, ops, ref, fixups, symbols);
        } catch (PatchException e) {
            if (required) {
                throw e;
            }
            return null; // the substituted text will say it, with the fragment's own text
        }
        return new FragmentCode(ref, fixups.toArray(new Fixup[0]), WrittenRegisters.of(ops, ref));
    }

    private FragmentCode unrelocatable(Insertion insertion, boolean required, int p) {
        if (required) {
            throw new PatchException(Reason.FRAGMENT_USES_PC, insertion.fragmentName() + ": the instruction at fragment offset " + p
                    + " depends on where the fragment lands; fragments may not use the pc except in auipc pairs and calls to symbols");
        }
        return null;
    }

    /** The assembly at the reference values; null when it does not assemble and is not required. */
    private Assembly run(Insertion insertion, String text, boolean required) {
        assemblerRuns++;
        Assembly a;
        try {
            a = Assembler.assemble(text, insertion.fragmentName(), symbols.reference(), symbols.externals(Map.of()));
        } catch (ListingException e) {
            if (!required) {
                return null;
            }
            throw new PatchException(Reason.BAD_LISTING, e.getMessage());
        }
        if (a.regions().size() != 1) {
            throw new PatchException(Reason.BAD_LISTING, insertion.fragmentName() + ": a fragment holds one region, this one has "
                    + a.regions().size());
        }
        target.require(a.target(), insertion.fragmentName());
        return a;
    }

    /** The instructions by byte offset (null between them); refuses bytes that are no instruction. */
    private Opcode[] decode(Insertion insertion, byte[] bytes) {
        Opcode[] ops = new Opcode[bytes.length];
        int p = 0;
        while (p < bytes.length) {
            // a lone last byte, or a parcel of a reserved length (-1), is no instruction (found by the fuzzer)
            int parcel = p + 1 < bytes.length ? (bytes[p] & 0xff) | (bytes[p + 1] & 0xff) << 8 : -1;
            int size = parcel < 0 ? -1 : Decoder.length(parcel);
            Opcode op = size < 2 || p + size > bytes.length ? null : decoder.decode(size == 2 ? parcel : u32(bytes, p), size);
            if (op == null) {
                throw new PatchException(Reason.FRAGMENT_NOT_CODE, insertion.fragmentName() + ": byte " + p + " is not an instruction of "
                        + target.source() + "; fragments hold code only");
            }
            ops[p] = op;
            p += size;
        }
        return ops;
    }

    /** Whether the word after the auipc at {@code p} completes it: its rs1 is the auipc's rd and it has a 12-bit immediate. */
    static boolean isLowPart(Opcode[] ops, byte[] bytes, int p) {
        int q = p + 4;
        if (q >= bytes.length || ops[q] == null || ops[q].size() != 4 || !ops[q].has(Operand.RS1) || !ops[q].has(Operand.IMM)
                || ops[q].hasBranchTarget() || ops[q] == Rv.AUIPC) {
            return false;
        }
        long rd = Rv.AUIPC.operand(u32(bytes, p), Operand.RD);
        return rd != 0 && ops[q].operand(u32(bytes, q), Operand.RS1) == rd;
    }

    static int size(Opcode op) {
        return op.size();
    }

    static int bits(Opcode op, byte[] bytes, int p) {
        return op.size() == 2 ? (bytes[p] & 0xff) | (bytes[p + 1] & 0xff) << 8 : u32(bytes, p);
    }
}
