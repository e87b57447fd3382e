package dev.splice.patch;

import dev.splice.base.BadInputException;
import dev.splice.base.Le;
import dev.splice.cfg.ControlFlowGraph;
import dev.splice.cfg.ControlFlowGraph.Block;
import dev.splice.cfg.LandingPads;
import dev.splice.cfg.riscv.RiscVCfg;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import dev.splice.elf.SymbolAddress;
import dev.splice.isa.ControlFlow;
import dev.splice.isa.Decoder;
import dev.splice.isa.Opcode;
import dev.splice.isa.Operand;
import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.Point.Refusal;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns {@link PointSpec}s into the instruction boundaries they select in one input binary, each
 * with the refusal an insertion there would meet (docs/patch.md, "Choosing points"). Blocks, loop
 * heads and exits are the write-back's CFG ({@link RiscVCfg#of(ElfFile, Function)}); refusals are
 * the insertion rules (the binary's, the function's decoding, pc-relative pairs, lr/sc sequences)
 * and, for a pattern's points, the functions bulk insertion skips up front (falling through at the
 * end).
 * Functions are decoded on first use and kept, so one selector answers many specs cheaply; its
 * methods may be called from several threads (one at a time).
 *
 * <pre>{@code
 * PointSelector selector = PointSelector.of(ElfFile.read(Path.of("prog")));
 * for (Point p : selector.select(PointSpec.parse("loop:hot_*"))) {
 *     System.out.println(p.location() + (p.accepted() ? "" : " refused: " + p.refusal().message()));
 * }
 * }</pre>
 */
public final class PointSelector {
    private final ElfFile elf;
    private final Decoder decoder;
    /** Why nothing in this binary can be inserted into (unsupported, no relocations), or null. */
    private final Refusal binaryRefusal;
    /** What insertion reads from the binary; null with {@link #binaryRefusal}. */
    private final Input input;
    /** By identity: a record's hashCode (every field, the section's too) cost more than the lookup, once per function. */
    private final Map<Section, byte[]> contents = new java.util.IdentityHashMap<>();
    private final Map<Long, Code> decoded = new HashMap<>();
    /** What the fragment being placed may write, while {@link #select(PointSpec, long)} runs; else any register. */
    private long fragmentWrites = WrittenRegisters.ALL;
    /** Every FUNC symbol name per function (aliases included), for globs, in the order of the functions; made on first use. */
    private List<Named> names;
    private Map<Long, long[]> landingPads;
    private FunctionLiveness liveness;

    private PointSelector(ElfFile elf) {
        this.elf = elf;
        Refusal refusal = null;
        Input in = null;
        try {
            Input.requireInsertable(elf);
            in = Input.read(elf);
        } catch (PatchException e) {
            refusal = new Refusal(e.reason(), e.getMessage());
        }
        this.binaryRefusal = refusal;
        this.input = in;
        this.decoder = in != null ? in.decoder() : Rv.ISA.decoder(Input.decodable(BinaryTarget.of(elf)));
    }

    /**
     * A selector for a binary.
     *
     * @param elf a RISC-V ELF file
     * @return the selector
     * @throws BadInputException when the file is not for RISC-V
     */
    public static PointSelector of(ElfFile elf) {
        if (!Objects.requireNonNull(elf, "elf").isRiscV()) {
            throw new BadInputException(elf.name() + ": not a RISC-V ELF file; points are selected in RISC-V code");
        }
        return new PointSelector(elf);
    }

    /**
     * The points of several specs: each spec's points in address order, the specs in the order given.
     *
     * @param specs the specs
     * @return the points
     * @throws BadInputException as {@link #select(PointSpec)}
     */
    public synchronized List<Point> select(List<PointSpec> specs) {
        List<Point> out = new ArrayList<>();
        for (PointSpec spec : specs) {
            out.addAll(select(spec));
        }
        return out;
    }

    /**
     * The points one spec selects, in address order. An explicit spec (an address, a symbol and
     * offset) selects exactly one point, whatever it is; a pattern selects boundaries of the code
     * functions whose name (or an alias) its glob matches.
     *
     * @param spec the spec
     * @return the points, refused ones included (with their {@link Point#refusal()})
     * @throws BadInputException when a symbol is unknown or ambiguous, an offset lies past its
     *     function, or a glob matches no function
     */
    public synchronized List<Point> select(PointSpec spec) {
        return select(spec, WrittenRegisters.ALL);
    }

    /**
     * {@link #select(PointSpec)} for a fragment that may change only the integer registers
     * {@code writes} ({@link WrittenRegisters}): a point inside a pc-relative pair whose register
     * it leaves alone is accepted.
     */
    synchronized List<Point> select(PointSpec spec, long writes) {
        fragmentWrites = writes;
        try {
            return selectFor(spec);
        } finally {
            fragmentWrites = WrittenRegisters.ALL;
        }
    }

    private List<Point> selectFor(PointSpec spec) {
        if (spec instanceof PointSpec.Address a) {
            return List.of(at(PointKind.ADDRESS, a.address(), spec.text()));
        }
        if (spec instanceof PointSpec.SymbolOffset s) {
            return List.of(at(PointKind.SYMBOL, resolve(s), spec.text()));
        }
        return patterned((PointSpec.Patterned) spec);
    }

    /** What insertion reads from the binary, read once here; null when the binary is refused as a whole. */
    Input input() {
        return input;
    }

    /**
     * The functions selection decoded as insertion decodes them, by address, for insertion to take
     * over ({@link FunctionDecoder}'s {@code predecoded}) instead of decoding them again.
     */
    Map<Long, MovedFunction> decodings() {
        Map<Long, MovedFunction> out = new HashMap<>();
        for (Code code : decoded.values()) {
            if (code.moved != null) {
                out.put(code.f.address(), code.moved); // of two functions at one address, insertion checks the size
            }
        }
        return out;
    }

    private Point at(PointKind kind, long address, String spec) {
        Function f = elf.functionContaining(address).orElse(null);
        if (f == null) {
            Refusal refusal = binaryRefusal != null ? binaryRefusal : new Refusal(Reason.NOT_IN_FUNCTION,
                    "address 0x" + Long.toHexString(address) + " is not inside a function of " + elf.name());
            return new Point(kind, address, null, 0, spec, refusal);
        }
        return point(kind, code(f), address, spec);
    }

    private long resolve(PointSpec.SymbolOffset s) {
        try {
            return SymbolAddress.resolve(elf, s.symbol(), s.offset(), "point spec '" + s.text() + "'");
        } catch (SymbolAddress.AmbiguousSymbolException e) {
            throw new PatchException(Reason.AMBIGUOUS_FUNCTION, e.getMessage());
        }
    }

    private List<Point> patterned(PointSpec.Patterned p) {
        List<Point> out = new ArrayList<>();
        boolean matched = false;
        for (Named e : names()) {
            if (e.names().stream().noneMatch(n -> p.functions().matcher(n).matches())) {
                continue;
            }
            matched = true;
            Code c = code(e.function());
            for (long offset : offsets(p, c)) {
                Point point = point(p.kind(), c, c.f.address() + offset, p.text());
                Refusal unlikely = point.accepted() ? c.unlikelyToMove() : null;
                out.add(unlikely == null ? point : new Point(point.kind(), point.address(), point.function(), point.offset(),
                        point.spec(), unlikely));
            }
        }
        if (!matched) {
            throw new BadInputException("point spec '" + p.text() + "': no function of " + elf.name()
                    + " has a name the glob matches");
        }
        return out;
    }

    /** The offsets a pattern selects in one function, ascending. */
    private long[] offsets(PointSpec.Patterned p, Code c) {
        switch (p.kind()) {
            case ENTRY:
                return new long[] {0};
            case INSN:
                return c.instructions(i -> c.ops[i] != null && p.mnemonics().matcher(c.ops[i].mnemonic()).matches());
            case CALL:
                return c.sequenceStarts(c.instructions(i -> c.ops[i] != null && isCall(c.ops[i].controlFlow(c.bits[i]))));
            default:
                break;
        }
        ControlFlowGraph cfg = c.cfg();
        if (cfg == null) {
            return new long[] {-1}; // refused below: no graph
        }
        List<Block> blocks = cfg.blocks();
        return switch (p.kind()) {
            case BLOCK -> blocks.stream().mapToLong(Block::start).toArray();
            case LOOP -> Arrays.stream(cfg.loopHeads()).mapToLong(b -> blocks.get(b).start()).toArray();
            case EXIT -> c.sequenceStarts(blocks.stream().filter(Block::exits)
                    .mapToLong(b -> b.instructions().get(b.instructions().size() - 1)).toArray());
            default -> throw new IllegalStateException(p.kind().toString());
        };
    }

    private static boolean isCall(ControlFlow flow) {
        return flow == ControlFlow.CALL || flow == ControlFlow.INDIRECT_CALL;
    }

    private Point point(PointKind kind, Code c, long address, String spec) {
        if (address < c.f.address()) { // a pattern's function without a CFG
            return new Point(kind, c.f.address(), c.f.name(), 0, spec, new Refusal(Reason.NOT_AN_INSTRUCTION_BOUNDARY,
                    "function '" + c.f.name() + "' has no control-flow graph: a branch goes into the middle of an "
                            + "instruction, or its bytes end inside one"));
        }
        return new Point(kind, address, c.f.name(), address - c.f.address(), spec, refusal(c, address));
    }

    /** Why an insertion at {@code address} of {@code c} is refused, in the order insertion checks it; null when accepted. */
    private Refusal refusal(Code c, long address) {
        if (binaryRefusal != null) {
            return binaryRefusal;
        }
        if (c.refusal != null) {
            return c.refusal;
        }
        if (c.index(address - c.f.address()) < 0) {
            return new Refusal(Reason.NOT_AN_INSTRUCTION_BOUNDARY, "0x" + Long.toHexString(address)
                    + " is not an instruction boundary of function '" + c.f.name() + "'");
        }
        InsertionRules.Refusal r = InsertionRules.refusalAt(c.moved, address, fragmentWrites);
        return r == null ? null : new Refusal(r.reason(), r.message());
    }

    /** A code function and its names (aliases included). */
    private record Named(Function function, List<String> names) {}

    /**
     * {@link #names}, made on first use. The functions are distinct (one per address and size), so
     * a list and a map by address replace a map keyed by the records (whose hashCode hashed every field).
     */
    private synchronized List<Named> names() {
        if (names == null) {
            Map<Long, List<Named>> byAddress = new HashMap<>();
            names = new ArrayList<>();
            for (Function f : elf.functions()) {
                if (f.size() > 0 && f.section() != null && f.section().isExecutable() && !f.section().isNobits()) {
                    Named n = new Named(f, new ArrayList<>(List.of(f.name())));
                    names.add(n);
                    byAddress.computeIfAbsent(f.address(), a -> new ArrayList<>()).add(n);
                }
            }
            for (Symbol s : elf.symbols()) {
                if (s.isFunction() && s.isDefinedInSection()) {
                    for (Named n : byAddress.getOrDefault(s.value(), List.of())) {
                        if (n.function().size() == s.size() && !n.names().contains(s.name())) {
                            n.names().add(s.name());
                        }
                    }
                }
            }
        }
        return names;
    }

    private Code code(Function f) {
        return decoded.computeIfAbsent(f.address() ^ (f.size() << 48), k -> new Code(f));
    }

    private byte[] contents(Section s) {
        return contents.computeIfAbsent(s, elf::contents);
    }

    /** One function: its instructions (linear sweep), its refusal as a whole, its decoding for the insertion rules. */
    private final class Code {
        final Function f;
        /** Per instruction, ascending: its offset, opcode (null when undecodable) and bits. */
        final int[] offsets;
        final Opcode[] ops;
        final int[] bits;
        /** Why the function cannot take any insertion, or null. */
        final Refusal refusal;
        /** The decoding insertion makes, for {@link InsertionRules#refusalAt}; null with a refusal. */
        final MovedFunction moved;
        private ControlFlowGraph cfg;
        private boolean cfgBuilt;

        Code(Function f) {
            this.f = f;
            Section s = f.section();
            boolean code = s != null && s.isExecutable() && !s.isNobits() && f.address() >= s.address()
                    && f.endAddress() <= s.address() + s.size();
            Refusal r = null;
            MovedFunction m = null;
            if (!code) {
                r = new Refusal(Reason.NOT_CODE, "function '" + f.name() + "' is not in a code section");
            } else if (input != null) {
                try {
                    MovedCode single = new MovedCode(input.file());
                    m = new MovedFunction(f);
                    single.put(m);
                    new FunctionDecoder(input, single, Map.of()).decode(m);
                } catch (PatchException e) {
                    r = new Refusal(e.reason(), e.getMessage());
                    m = null;
                }
            }
            refusal = r;
            moved = m;
            if (m != null) {
                // Decoded without a refusal: every instruction is whole and valid, so the decoding is the linear sweep's.
                List<MovedFunction.Item> insns = m.instructions.values();
                offsets = new int[insns.size()];
                ops = new Opcode[insns.size()];
                bits = new int[insns.size()];
                for (int k = 0; k < offsets.length; k++) {
                    MovedFunction.Item i = insns.get(k);
                    offsets[k] = (int) (i.oldAddress - f.address());
                    ops[k] = i.op;
                    bits[k] = i.bits;
                }
                return;
            }
            // Plain arrays, trimmed at the end: boxed lists cost an Integer per instruction (114,000 in a large binary).
            int capacity = code ? (int) Math.min(f.size() / 3 + 4, 1 << 20) : 0; // the usual density, grown when short
            int[] at = new int[capacity];
            Opcode[] opcodes = new Opcode[capacity];
            int[] words = new int[capacity];
            int n = 0;
            if (code) {
                byte[] bytes = contents(s);
                int base = (int) (f.address() - s.address());
                for (int o = 0; o + 2 <= f.size(); ) {
                    int parcel = Le.u16(bytes, base + o);
                    int length = Decoder.length(parcel);
                    if (length != 2 && length != 4 || o + length > f.size()) {
                        break;
                    }
                    int word = length == 2 ? parcel : Le.u32(bytes, base + o);
                    if (n == at.length) {
                        at = Arrays.copyOf(at, n * 2);
                        opcodes = Arrays.copyOf(opcodes, n * 2);
                        words = Arrays.copyOf(words, n * 2);
                    }
                    at[n] = o;
                    opcodes[n] = decoder.decode(word, length);
                    words[n] = word;
                    n++;
                    o += length;
                }
            }
            offsets = Arrays.copyOf(at, n);
            ops = Arrays.copyOf(opcodes, n);
            bits = Arrays.copyOf(words, n);
        }

        /** The index of the instruction at {@code offset}, or -1 when none starts there. */
        int index(long offset) {
            return offset < 0 || offset > Integer.MAX_VALUE ? -1 : Math.max(-1, Arrays.binarySearch(offsets, (int) offset));
        }

        long[] instructions(java.util.function.IntPredicate which) {
            return java.util.stream.IntStream.range(0, offsets.length).filter(which).mapToLong(i -> offsets[i]).toArray();
        }

        /**
         * The offsets with each jalr that completes an {@code auipc} pair right before it (a
         * {@code call} or {@code tail} the linker did not relax) moved to the auipc: the sequence
         * starts there, and nothing may go between the two.
         */
        long[] sequenceStarts(long[] jumps) {
            long[] out = jumps.clone();
            for (int k = 0; k < out.length; k++) {
                int i = index(out[k]);
                if (i > 0 && ops[i] == Rv.JALR && ops[i - 1] == Rv.AUIPC
                        && ops[i - 1].operand(bits[i - 1], Operand.RD) == ops[i].operand(bits[i], Operand.RS1)) {
                    out[k] = offsets[i - 1];
                }
            }
            return out;
        }

        /**
         * Why a pattern does not try this function (as bulk insertion skips it up front): falling
         * through at its end into code the jump back cannot reach without a free register (not
         * after a call, and no caller-saved register dead at the entry of the function there). Null
         * when it is worth trying. (Functions under 8 bytes are tried: {@link PointInserter} leaves
         * out up front those whose old entry stays used, by {@link TinyFunctions}.)
         */
        Refusal unlikelyToMove() {
            if (moved == null) {
                return null;
            }
            MovedFunction.Item end = moved.items.get(moved.items.size() - 1);
            if (end.kind == MovedFunction.Kind.FALLTHROUGH && !end.afterCall && liveness().deadAtEntry(end.target) < 0) {
                return new Refusal(Reason.FALLS_THROUGH, "function '" + f.name()
                        + "' falls through into the code after it, and the jump back may not reach (no caller-saved register"
                        + " is dead at the entry of the function there)");
            }
            return null;
        }

        ControlFlowGraph cfg() {
            if (!cfgBuilt) {
                long[] pads = landingPads().getOrDefault(f.address(), new long[0]);
                int[] padOffsets = Arrays.stream(pads).filter(f::contains).mapToInt(a -> (int) (a - f.address())).toArray();
                Section s = f.section();
                cfg = RiscVCfg.of(contents(s), (int) (f.address() - s.address()), (int) f.size(), padOffsets);
                cfgBuilt = true;
            }
            return cfg;
        }
    }

    /** The liveness of the input's functions, for the jumps back of functions that fall through; made on first use. */
    private synchronized FunctionLiveness liveness() {
        if (liveness == null) {
            liveness = new FunctionLiveness(input);
        }
        return liveness;
    }

    private synchronized Map<Long, long[]> landingPads() {
        if (landingPads == null) {
            landingPads = LandingPads.of(elf);
        }
        return landingPads;
    }
}
