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
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Assembles the fragments to insert, once per distinct text, and checks that they hold code only,
 * fit the binary's target and leave themselves only to call a known function (of the binary or
 * of the runtime) and come back.
 *
 * <p>A template's fields become symbols and it is assembled a few times: at a reference placement,
 * and with each variable it may depend on (its own address, the runtime's address, each numeric
 * field) moved by one page. The words that change are the auipc pairs and {@code jal} calls whose
 * targets follow those variables ({@link FragmentCode}); per point they are re-encoded, without
 * assembling again. A template whose fields change other bits (a field inside {@code li}, or
 * {@code {func}}) is assembled per distinct substituted text instead, cached by that text; both
 * ways give the same bytes. Comments are text too: a fragment that differs from another only in
 * comments is assembled once more, to the same bytes.
 */
final class FragmentAssembler {
    /** How far a variable moves in the variants: one page keeps alignments and instruction sizes. */
    private static final long STEP = 4096;

    private final BinaryTarget target;
    private final Decoder decoder;
    private final FragmentSymbols symbols;
    /** Templates by text; null value: the text needs substitution per point. */
    private final Map<String, Template> templates;
    /** Substituted texts by text. */
    private final Map<String, FragmentCode> substituted;
    private int assemblerRuns;

    /** What a fragment text became: the template and, when one code serves every point, that code. */
    private record Template(FragmentTemplate template, FragmentCode code) {}

    FragmentAssembler(BinaryTarget target, Decoder decoder, FragmentSymbols symbols) {
        this(target, decoder, symbols, new HashMap<>(), new HashMap<>());
    }

    private FragmentAssembler(BinaryTarget target, Decoder decoder, FragmentSymbols symbols, Map<String, Template> templates,
                              Map<String, FragmentCode> substituted) {
        this.target = target;
        this.decoder = decoder;
        this.symbols = symbols;
        this.templates = templates;
        this.substituted = substituted;
    }

    /** A copy for another attempt: it starts with what this one assembled so far. */
    FragmentAssembler copy() {
        return new FragmentAssembler(target, decoder, symbols, new HashMap<>(templates), new HashMap<>(substituted));
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

    /** The code of each insertion of {@code frag}, for its points' fields; sets the item's size. */
    void prepare(Item frag, PointFields[] points) {
        FragmentCode[] codes = new FragmentCode[frag.insertions.size()];
        int size = 0;
        for (int k = 0; k < codes.length; k++) {
            Insertion insertion = frag.insertions.get(k);
            Template t = template(insertion);
            codes[k] = t.code != null ? t.code : substituted(insertion, t.template.substitute(points[k]));
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
                once = assembleChecked(insertion, parsed.text(), List.of(), true);
            } else if (!parsed.fields().contains(Field.FUNC)) {
                List<Variable> fields = new ArrayList<>();
                for (Field f : parsed.fields()) {
                    fields.add(Variable.valueOf(f.name()));
                }
                once = assembleChecked(insertion, parsed.symbolic(), fields, false);
            }
            t = new Template(parsed, once);
            templates.put(insertion.fragment(), t);
        }
        return t;
    }

    private FragmentCode substituted(Insertion insertion, String text) {
        FragmentCode code = substituted.get(text);
        if (code == null) {
            code = assembleChecked(insertion, text, List.of(), true);
            substituted.put(text, code);
        }
        return code;
    }

    /**
     * Assembles {@code text} at the reference placement and with each variable moved, finds the
     * words that follow the variables and checks the code; returns null when {@code text} (with
     * fields as symbols) cannot be relocated that way and {@code required} is false.
     */
    private FragmentCode assembleChecked(Insertion insertion, String text, List<Variable> fields, boolean required) {
        if (text.contains("align")) {
            throw new PatchException(Reason.BAD_LISTING, insertion.fragmentName() + ": a fragment may not align "
                    + "(.align, .p2align, .balign): its bytes would depend on where it lands");
        }
        Map<Variable, Long> values = new HashMap<>();
        byte[] ref = run(insertion, text, values, required);
        if (ref == null) {
            return null;
        }
        Opcode[] ops = decode(insertion, ref);
        List<Variable> moved = new ArrayList<>();
        if (hasPcSites(ops, ref)) {
            moved.add(Variable.ADDRESS);
            if (text.contains("__splice_")) { // names the runtime, or fields (symbols too)
                moved.add(Variable.RUNTIME);
            }
        }
        moved.addAll(fields);
        byte[][] variants = new byte[moved.size()][];
        for (int v = 0; v < variants.length; v++) {
            values.clear();
            values.put(moved.get(v), STEP);
            variants[v] = run(insertion, text, values, required);
            if (variants[v] == null || variants[v].length != ref.length) {
                if (required) {
                    throw new PatchException(Reason.BAD_LISTING, insertion.fragmentName()
                            + ": the fragment's size depends on where it lands");
                }
                return null;
            }
        }
        List<Fixup> fixups = new ArrayList<>();
        boolean[] site = new boolean[ref.length];
        for (int p = 0; p < ref.length; p += size(ops[p])) {
            Opcode op = ops[p];
            boolean pair = op == Rv.AUIPC && isLowPart(ops, ref, p);
            if (op != Rv.AUIPC && op != Rv.JAL) {
                continue;
            }
            int depends = 0;
            long t = target(ops, ref, p, pair, symbols.reference());
            for (int v = 0; v < variants.length; v++) {
                long base = symbols.reference() + (moved.get(v) == Variable.ADDRESS ? STEP : 0);
                long d = target(ops, variants[v], p, pair, base) - t;
                if (d == STEP) {
                    depends |= moved.get(v).bit;
                } else if (d != 0) {
                    return unrelocatable(insertion, required, p);
                }
            }
            Arrays.fill(site, p, p + (pair ? 8 : 4), true);
            if (depends != Variable.ADDRESS.bit) { // a target that moves with the fragment keeps its words
                fixups.add(new Fixup(p, pair ? ops[p + 4] : null, t, depends));
            }
        }
        try {
            FragmentChecks.check(insertion, ops, ref, fixups, symbols);
        } catch (PatchException e) {
            if (required) {
                throw e;
            }
            return null; // the substituted text will say it, with the fragment's own text
        }
        for (byte[] variant : variants) {
            for (int p = 0; p < ref.length; p++) {
                if (variant[p] != ref[p] && !site[p]) {
                    return unrelocatable(insertion, required, p & ~1);
                }
            }
        }
        return new FragmentCode(ref, fixups.toArray(new Fixup[0]));
    }

    private FragmentCode unrelocatable(Insertion insertion, boolean required, int p) {
        if (required) {
            throw new PatchException(Reason.FRAGMENT_USES_PC, insertion.fragmentName() + ": the instruction at fragment offset " + p
                    + " depends on where the fragment lands; fragments may not use the pc except in auipc pairs and calls to symbols");
        }
        return null;
    }

    /** The assembled bytes with the reference values moved by {@code moved}; null when it does not assemble and is not required. */
    private byte[] run(Insertion insertion, String text, Map<Variable, Long> moved, boolean required) {
        assemblerRuns++;
        long address = symbols.reference() + moved.getOrDefault(Variable.ADDRESS, 0L);
        Assembly a;
        try {
            a = Assembler.assemble(text, insertion.fragmentName(), address, symbols.externals(moved));
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
        return a.bytes();
    }

    /** The instructions by byte offset (null between them); refuses bytes that are no instruction. */
    private Opcode[] decode(Insertion insertion, byte[] bytes) {
        Opcode[] ops = new Opcode[bytes.length];
        int p = 0;
        while (p < bytes.length) {
            int parcel = (bytes[p] & 0xff) | (bytes[p + 1] & 0xff) << 8;
            int size = Decoder.length(parcel);
            Opcode op = p + size > bytes.length ? null : decoder.decode(size == 2 ? parcel : u32(bytes, p), size);
            if (op == null) {
                throw new PatchException(Reason.FRAGMENT_NOT_CODE, insertion.fragmentName() + ": byte " + p + " is not an instruction of "
                        + target.source() + "; fragments hold code only");
            }
            ops[p] = op;
            p += size;
        }
        return ops;
    }

    /** Whether anything in the code may depend on its address: an auipc, or a jump or branch out of it. */
    private static boolean hasPcSites(Opcode[] ops, byte[] bytes) {
        for (int p = 0; p < bytes.length; p += size(ops[p])) {
            Opcode op = ops[p];
            if (op == Rv.AUIPC) {
                return true;
            }
            if (op.hasBranchTarget()) {
                long t = p + op.branchOffset(bits(op, bytes, p));
                if (t < 0 || t > bytes.length) {
                    return true;
                }
            }
        }
        return false;
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

    /** The absolute target of the auipc pair or jal at {@code p} of code assembled at {@code base}. */
    private static long target(Opcode[] ops, byte[] bytes, int p, boolean pair, long base) {
        long pc = base + p;
        if (pair) {
            int lo = u32(bytes, p + 4);
            return pc + Rv.upper(Rv.AUIPC, u32(bytes, p)) + ops[p + 4].operand(lo, Operand.IMM);
        }
        Opcode op = ops[p];
        return op == Rv.JAL ? pc + op.branchOffset(u32(bytes, p)) : pc;
    }

    static int size(Opcode op) {
        return op.size();
    }

    static int bits(Opcode op, byte[] bytes, int p) {
        return op.size() == 2 ? (bytes[p] & 0xff) | (bytes[p + 1] & 0xff) << 8 : u32(bytes, p);
    }
}
