package dev.splice.listing;

import dev.splice.base.Hex;
import dev.splice.isa.Decoder;
import dev.splice.isa.Encoder;
import dev.splice.isa.Extension;
import dev.splice.isa.Field;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.isa.OperandException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Assembles a listing (the text {@link ListingWriter} writes, or what people type) into bytes.
 *
 * <p>Two passes: the first parses every line, defines labels and fixes each statement's size
 * and address (sizes never depend on label values, so two passes are enough and forward
 * references work); the second encodes. Every error is a {@link ListingException} with
 * {@code file:line:column}. See docs/listing.md for the accepted syntax.
 */
public final class Assembler {
    /** Largest region, and largest fill of one directive: bounds allocations by typed numbers. */
    private static final long MAX_REGION_BYTES = 1L << 28;
    private static final long MAX_FILL_BYTES = 1L << 24;
    private static final int NOP = 0x00000013;
    private static final int C_NOP = 0x0001;
    /** Register-register instructions whose immediate form the peers accept under the same name. */
    private static final Map<String, String> IMMEDIATE_FORMS = Map.ofEntries(Map.entry("add", "addi"),
            Map.entry("and", "andi"), Map.entry("or", "ori"), Map.entry("xor", "xori"), Map.entry("sll", "slli"),
            Map.entry("srl", "srli"), Map.entry("sra", "srai"), Map.entry("slt", "slti"), Map.entry("sltu", "sltiu"),
            Map.entry("addw", "addiw"), Map.entry("sllw", "slliw"), Map.entry("srlw", "srliw"), Map.entry("sraw", "sraiw"),
            Map.entry("ror", "rori"), Map.entry("rorw", "roriw"), Map.entry("csrrw", "csrrwi"), Map.entry("csrrs", "csrrsi"),
            Map.entry("csrrc", "csrrci"), Map.entry("csrw", "csrwi"), Map.entry("csrs", "csrsi"), Map.entry("csrc", "csrci"));
    /** The conditional branches (and pseudo branches) and the branch that inverts each one. */
    private static final Map<String, String> INVERTED = Map.of("beq", "bne", "bne", "beq", "blt", "bge",
            "bge", "blt", "bltu", "bgeu", "bgeu", "bltu");
    private static final Set<String> CONDITIONAL = Set.of("beq", "bne", "blt", "bge", "bltu", "bgeu",
            "beqz", "bnez", "blez", "bgez", "bltz", "bgtz", "bgt", "ble", "bgtu", "bleu");

    private final String file;
    private final Long firstAddress;
    private final Map<String, Long> externals;
    private final Isa isa = Isa.rv64();

    private final List<Statement> statements = new ArrayList<>();
    private final List<RegionBuilder> regions = new ArrayList<>();
    private final Map<String, Long> labels = new LinkedHashMap<>();
    private final Map<String, List<long[]>> localLabels = new HashMap<>();
    private String targetName;
    private Set<Extension> target;
    private boolean rvc = true;
    /** .option push saves rvc and the target; .option pop restores them. */
    private final Deque<Object[]> optionStack = new ArrayDeque<>();
    /** .equ/.set values by name: {line, value} in line order (.set may redefine a name). */
    private final Map<String, List<long[]>> equs = new HashMap<>();
    /** auipc statements by address, for %pcrel_lo(label). */
    private final Map<Long, Statement> auipcs = new HashMap<>();
    private final List<Fixup> fixups = new ArrayList<>();
    /** Distinct statement lines seen, with their parse ({@link #parsed}); bounded, for listings of distinct lines. */
    private final Map<String, Parsed> parsedLines = new HashMap<>();
    private static final int MAX_PARSED_LINES = 1 << 16;
    /** Bit r set: some instruction may write integer register r. */
    private int written;

    private Assembler(String file, Long firstAddress, Map<String, Long> externals) {
        this.file = file;
        this.firstAddress = firstAddress;
        this.externals = externals;
        setTarget("rv64gc", 0, 0);
    }

    /**
     * Assembles a listing; its region lines give the addresses (a listing without one starts at 0).
     *
     * @param text the listing
     * @param fileName names the listing in error messages
     * @return the assembled regions, target and labels
     * @throws ListingException if a line does not assemble ({@code file:line:column: why})
     */
    public static Assembly assemble(String text, String fileName) {
        return assemble(text, fileName, null, Map.of());
    }

    /**
     * Reads and assembles a listing file (UTF-8).
     *
     * @param listing the listing file; its path names it in error messages
     * @return the assembled regions, target and labels
     * @throws IOException if the file cannot be read
     * @throws ListingException if a line does not assemble
     */
    public static Assembly assemble(Path listing) throws IOException {
        return assemble(dev.splice.base.InputFiles.readString(listing), listing.toString());
    }

    /**
     * Assembles a listing or a fragment at a chosen address: {@code address}, when not null,
     * replaces the address of the first region (or places a listing without a region line);
     * names the listing does not define are looked up in {@code externals} (absolute addresses),
     * so that a fragment can branch to code around it.
     *
     * @param text the listing or fragment
     * @param fileName names the text in error messages
     * @param address the address of the first region, or null to keep the listing's own
     * @param externals absolute addresses of names defined outside the text (null: none)
     * @return the assembled regions, target and labels
     * @throws ListingException if a line does not assemble
     */
    public static Assembly assemble(String text, String fileName, Long address, Map<String, Long> externals) {
        Assembler assembler = new Assembler(fileName, address, externals == null ? Map.of() : externals);
        return assembler.run(text);
    }

    private Assembly run(String text) {
        int lineNo = 0;
        for (int start = 0; start <= text.length(); ) {
            int end = text.indexOf('\n', start);
            if (end < 0) {
                end = text.length();
            }
            int stop = end > start && text.charAt(end - 1) == '\r' ? end - 1 : end;
            parseLine(text.substring(start, stop), ++lineNo);
            start = end + 1;
        }
        byte[][] buffers = new byte[regions.size()][];
        for (int r = 0; r < regions.size(); r++) {
            buffers[r] = new byte[(int) regions.get(r).size];
        }
        for (Statement s : statements) {
            s.emit(buffers[s.region]);
        }
        List<Region> result = new ArrayList<>(regions.size());
        for (int r = 0; r < regions.size(); r++) {
            RegionBuilder b = regions.get(r);
            result.add(new Region(b.kind, b.name, b.address, buffers[r]));
        }
        Set<Integer> writtenRegisters = new java.util.TreeSet<>();
        for (int r = 1; r < 32; r++) {
            if ((written & 1 << r) != 0) {
                writtenRegisters.add(r);
            }
        }
        return new Assembly(targetName, result, labels, file, fixups, writtenRegisters);
    }

    // ---------------------------------------------------------------- pass 1: parse and size

    private void parseLine(String line, int lineNo) {
        int end = line.indexOf('#');
        if (end < 0) {
            end = line.length();
        }
        int pos = skipSpace(line, 0, end);
        while (pos < end) { // leading labels "name:"
            int identEnd = pos;
            while (identEnd < end && isLabelChar(line.charAt(identEnd))) {
                identEnd++;
            }
            if (identEnd == pos || identEnd >= end || line.charAt(identEnd) != ':') {
                break;
            }
            defineLabel(line.substring(pos, identEnd), lineNo, pos + 1);
            pos = skipSpace(line, identEnd + 1, end);
        }
        if (pos >= end) {
            return;
        }
        int wordEnd = pos;
        while (wordEnd < end && !Character.isWhitespace(line.charAt(wordEnd))) {
            wordEnd++;
        }
        Parsed parsed = parsed(line, pos, wordEnd, end);
        Statement s = new Statement(lineNo, pos + 1, parsed.word(), parsed.operands());
        if (s.word.startsWith(".")) {
            directive(s);
        } else {
            instruction(s);
        }
    }

    /** A statement's word and operands (immutable, so equal lines may share them). */
    private record Parsed(String word, List<Operand> operands) {}

    /**
     * The word and operands of {@code line[pos, end)}, shared by every line with the same text
     * there: generated listings (weight probes: millions of lines, few distinct ones) would otherwise
     * hold a String per word and operand of every line. Operand columns count from the line's start,
     * so the key is the line up to its comment.
     */
    private Parsed parsed(String line, int pos, int wordEnd, int end) {
        String key = line.substring(0, end); // labels and indentation included: equal keys, equal columns
        Parsed p = parsedLines.get(key);
        if (p == null) {
            p = new Parsed(line.substring(pos, wordEnd).toLowerCase(Locale.ROOT),
                    List.copyOf(Operand.split(line, wordEnd, end)));
            if (parsedLines.size() < MAX_PARSED_LINES) {
                parsedLines.put(key, p);
            }
        }
        return p;
    }

    private static int skipSpace(String line, int pos, int end) {
        while (pos < end && Character.isWhitespace(line.charAt(pos))) {
            pos++;
        }
        return pos;
    }

    private static boolean isLabelChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '_' || c == '.' || c == '$';
    }

    private void defineLabel(String name, int lineNo, int column) {
        RegionBuilder region = currentRegion(lineNo);
        long address = region.address + region.size;
        if (Character.isDigit(name.charAt(0))) {
            for (int i = 0; i < name.length(); i++) {
                if (!Character.isDigit(name.charAt(i))) {
                    throw new ListingException(file, lineNo, column,
                            "bad label '" + name + "': a label starting with a digit must be all digits (a local label)");
                }
            }
            localLabels.computeIfAbsent(name, k -> new ArrayList<>()).add(new long[] {lineNo, address});
            return;
        }
        if (labels.containsKey(name)) {
            throw new ListingException(file, lineNo, column, "duplicate label '" + name + "' (first defined at 0x"
                    + Long.toHexString(labels.get(name)) + ")");
        }
        labels.put(name, address);
    }

    private RegionBuilder currentRegion(int lineNo) {
        if (regions.isEmpty()) {
            regions.add(new RegionBuilder(Region.Kind.RAW, "", firstAddress == null ? 0 : firstAddress, lineNo));
        }
        return regions.get(regions.size() - 1);
    }

    private void instruction(Statement s) {
        RegionBuilder region = currentRegion(s.line);
        s.place(regions.size() - 1, region.address + region.size, rvc, target);
        String immediateForm = IMMEDIATE_FORMS.get(s.word);
        if (immediateForm != null && !s.operands.isEmpty()
                && !Registers.isInteger(s.operands.get(s.operands.size() - 1).text())) {
            s.word = immediateForm; // "addw a2, a3, 4" is addiw, "csrw mstatus, 7" csrwi, as in GNU as and llvm-mc
        }
        if (s.word.equals("c.nop") && s.operands.size() == 1 && Long.valueOf(0).equals(s.context(false).constant(s.operands.get(0)))) {
            throw s.error(s.operands.get(0).column(), "c.nop: an explicit immediate must not be 0 (write c.nop)");
        }
        if (s.word.equals("auipc")) {
            auipcs.put(s.address, s);
        }
        if (Pseudos.handles(s.word, s.operands, s.target)) {
            s.pseudo = true;
            int size = 0;
            for (Pseudos.Step step : Pseudos.expand(s.word, s.operands, s.context(false))) {
                size += opcode(s, step.mnemonic()).size();
            }
            s.size = size;
        } else {
            Opcode op = isa.opcode(s.word);
            if (op == null) {
                throw s.error(s.column, "unknown mnemonic '" + s.word + "'");
            }
            s.opcode = op;
            checkTarget(s, op);
            s.size = op.size();
            if (op.size() == 2 && op.hasBranchTarget() && namesExternal(s)) {
                throw s.error(s.operands.get(s.operands.size() - 1).column(), "'" + s.word
                        + "' cannot be sure to reach an external name (c.* instructions stay exact); write the 32-bit form");
            }
        }
        if (CONDITIONAL.contains(s.word) && namesExternal(s)) {
            // As GNU as and llvm-mc: the inverted branch over a jal (+-1 MiB), whatever the name's value.
            s.farBranch = true;
            s.size = 8;
        }
        grow(region, s);
        statements.add(s);
    }

    /** True if the statement's last operand is an external name (plus a constant), by what is known in pass 1. */
    private boolean namesExternal(Statement s) {
        if (s.operands.isEmpty()) {
            return false;
        }
        try {
            Expression.Value v = s.valueOrNull(s.operands.get(s.operands.size() - 1));
            return v != null && v.origin() == Expression.Origin.EXTERNAL; // null: a label defined later
        } catch (ListingException e) {
            return false; // a bad operand, which pass 2 reports
        }
    }

    private Opcode opcode(Statement s, String mnemonic) {
        Opcode op = isa.opcode(mnemonic);
        if (op == null) {
            throw s.error(s.column, "'" + s.word + "' needs '" + mnemonic + "', which the instruction table lacks");
        }
        return op;
    }

    private void checkTarget(Statement s, Opcode op) {
        for (Extension needed : op.requires()) { // c.fld needs C and D
            if (!s.target.contains(needed)) {
                throw s.error(s.column, "'" + op.mnemonic() + "' needs extension " + needed.isaName()
                        + ", which is not in .target " + s.targetName);
            }
        }
        if (!op.enabledBy(s.target)) { // rol: Zbb or Zbkb
            StringBuilder names = new StringBuilder();
            for (Extension e : op.anyOf()) {
                names.append(names.length() == 0 ? "" : " or ").append(e.isaName());
            }
            throw s.error(s.column, "'" + op.mnemonic() + "' needs extension " + names
                    + ", neither of which is in .target " + s.targetName);
        }
        if (op.requires().contains(Extension.C) && !s.rvc) {
            throw s.error(s.column, "'" + op.mnemonic() + "' is a compressed instruction, but .option norvc is in effect");
        }
    }

    private void grow(RegionBuilder region, Statement s) {
        region.size += s.size;
        if (region.size > MAX_REGION_BYTES) {
            throw s.error(s.column, "region grows beyond " + MAX_REGION_BYTES + " bytes");
        }
    }

    private void setTarget(String name, int lineNo, int column) {
        try {
            Set<Extension> parsed = Extension.parseTarget(name);
            target = EnumSet.copyOf(parsed);
            targetName = Extension.targetName(target);
        } catch (IllegalArgumentException e) {
            throw new ListingException(file, lineNo, column, "bad .target '" + name + "': " + e.getMessage());
        }
    }

    private void directive(Statement s) {
        List<Operand> ops = s.operands;
        switch (s.word) {
            case ".target" -> {
                requireCount(s, 1, ".target rv64gc[_ext...]");
                setTarget(ops.get(0).text().toLowerCase(Locale.ROOT), s.line, ops.get(0).column());
            }
            case ".option" -> option(s);
            case ".equ", ".set" -> {
                requireCount(s, 2, s.word + " NAME, VALUE");
                String name = ops.get(0).text();
                if (name.isEmpty() || Character.isDigit(name.charAt(0)) || Expression.hasOperator(name) || name.equals(".")) {
                    throw s.error(ops.get(0).column(), "bad name '" + name + "' for " + s.word);
                }
                long value = constant(s, ops.get(1));
                equs.computeIfAbsent(name, k -> new ArrayList<>()).add(new long[] {s.line, value});
            }
            case ".section", ".function" -> {
                if (ops.size() < 2) {
                    throw s.error(s.column, s.word + " takes a name and an address: " + s.word + " NAME, ADDRESS");
                }
                StringBuilder name = new StringBuilder();
                for (int i = 0; i < ops.size() - 1; i++) {
                    name.append(i > 0 ? ", " : "").append(ops.get(i).text());
                }
                Region.Kind kind = s.word.equals(".section") ? Region.Kind.SECTION : Region.Kind.FUNCTION;
                startRegion(s, kind, name.toString(), ops.get(ops.size() - 1));
            }
            case ".origin" -> {
                requireCount(s, 1, ".origin ADDRESS");
                startRegion(s, Region.Kind.RAW, "", ops.get(0));
            }
            case ".byte" -> data(s, 1);
            case ".half", ".2byte", ".short" -> data(s, 2);
            case ".word", ".4byte", ".long" -> data(s, 4);
            case ".dword", ".8byte", ".quad" -> data(s, 8);
            case ".insn" -> insn(s);
            case ".align", ".p2align" -> align(s, true);
            case ".balign" -> align(s, false);
            case ".zero", ".skip", ".space" -> zero(s);
            case ".text", ".globl", ".global", ".local", ".type", ".size", ".file", ".ident" -> {
                // Accepted for text pasted from compiler output; they do not change the bytes.
            }
            default -> throw s.error(s.column, "unknown directive '" + s.word + "'");
        }
    }

    private void option(Statement s) {
        List<Operand> ops = s.operands;
        if (ops.isEmpty()) {
            throw s.error(s.column, ".option takes rvc, norvc, push, pop or arch, +EXT|-EXT|ISA");
        }
        String what = ops.get(0).text();
        if (what.equals("arch")) {
            if (ops.size() < 2) {
                throw s.error(s.column, ".option arch takes +EXT, -EXT or a whole ISA string (.option arch, +zba)");
            }
            Set<Extension> next = EnumSet.copyOf(target);
            for (Operand o : ops.subList(1, ops.size())) {
                String item = o.text().toLowerCase(Locale.ROOT);
                try {
                    if (item.startsWith("+") || item.startsWith("-")) {
                        if (item.startsWith("+")) {
                            next.addAll(extensionsNamed(item.substring(1)));
                        } else {
                            next.remove(exactExtension(item.substring(1)));
                        }
                    } else {
                        next = EnumSet.copyOf(Extension.parseTarget(item));
                    }
                } catch (IllegalArgumentException e) {
                    throw s.error(o.column(), "bad .option arch '" + o.text() + "': " + e.getMessage());
                }
            }
            rvc = next.contains(Extension.C) || (rvc && !target.contains(Extension.C));
            target = next;
            targetName = Extension.targetName(target);
            return;
        }
        requireCount(s, 1, ".option rvc|norvc|push|pop|arch");
        switch (what) {
            case "rvc" -> rvc = true;
            case "norvc" -> rvc = false;
            case "push" -> optionStack.push(new Object[] {rvc, target, targetName});
            case "pop" -> {
                if (optionStack.isEmpty()) {
                    throw s.error(ops.get(0).column(), ".option pop without .option push");
                }
                Object[] saved = optionStack.pop();
                rvc = (Boolean) saved[0];
                @SuppressWarnings("unchecked")
                Set<Extension> savedTarget = (Set<Extension>) saved[1];
                target = savedTarget;
                targetName = (String) saved[2];
            }
            default -> throw s.error(ops.get(0).column(), "unknown .option '" + what
                    + "' (known: rvc, norvc, push, pop, arch)");
        }
    }

    /** The extensions {@code .option arch, +NAME} adds: the named one and those it implies ("d": F, Zicsr). */
    private static Set<Extension> extensionsNamed(String name) {
        Set<Extension> set = EnumSet.copyOf(Extension.parseTarget(name.length() == 1 ? "rv64i" + name : "rv64i_" + name));
        if (!name.equals("i")) {
            set.remove(Extension.I);
        }
        return set;
    }

    /** The extension {@code .option arch, -NAME} removes (only it: "-d" keeps F). */
    private static Extension exactExtension(String name) {
        for (Extension e : Extension.values()) {
            if (e.isaName().equals(name)) {
                return e;
            }
        }
        throw new IllegalArgumentException("unknown extension '" + name + "'");
    }

    private void requireCount(Statement s, int count, String usage) {
        if (s.operands.size() != count) {
            throw s.error(s.column, s.word + " takes " + count + " operand" + (count == 1 ? "" : "s") + ": " + usage);
        }
    }

    private void startRegion(Statement s, Region.Kind kind, String name, Operand addressOperand) {
        long address = constant(s, addressOperand);
        if (regions.size() == 1 && regions.get(0).size == 0 && regions.get(0).implicit && statements.isEmpty()) {
            regions.remove(0); // labels before the first region line stay at its start
            relocateLabels(address);
        }
        if (regions.isEmpty() && firstAddress != null) {
            address = firstAddress;
        }
        regions.add(new RegionBuilder(kind, name, address, s.line));
        regions.get(regions.size() - 1).implicit = false;
    }

    /** Labels defined before the first region line (at the implicit start) move to its address. */
    private void relocateLabels(long address) {
        long base = firstAddress == null ? 0 : firstAddress;
        long target = firstAddress == null ? address : firstAddress;
        labels.replaceAll((k, v) -> v - base + target);
        for (List<long[]> defs : localLabels.values()) {
            for (long[] def : defs) {
                def[1] = def[1] - base + target;
            }
        }
    }

    /** A constant expression's value (numbers, .equ names, differences of labels defined so far). */
    private long constant(Statement s, Operand operand) {
        Expression.Value v = evaluate(s, operand);
        if (!v.isConstant()) {
            throw s.error(operand.column(), "'" + operand.text() + "' is not a constant");
        }
        return v.value();
    }

    /** Evaluates an operand's expression at statement {@code s}. */
    private Expression.Value evaluate(Statement s, Operand operand) {
        return evaluate(s, operand.text(), operand.column());
    }

    private Expression.Value evaluate(Statement s, String text, int column) {
        if (text.isEmpty()) {
            throw s.error(column > 0 ? column : s.column, "empty operand");
        }
        try {
            return Expression.evaluate(text, (name, at) -> lookup(s, name, at));
        } catch (Expression.Failure f) {
            throw s.error(column > 0 ? column + f.at : s.column, f.getMessage());
        }
    }

    /** The value of a name at statement {@code s}: ., a local label, an .equ name, a label, an external name. */
    private Expression.Value lookup(Statement s, String name, int at) {
        if (name.equals(".")) {
            return new Expression.Value(Expression.Origin.INTERNAL, null, 0, s.address); // GNU as: the statement's address
        }
        if (Numbers.isLocalReference(name)) {
            Long address = local(name, s.line);
            if (address == null) {
                throw new Expression.Failure("undefined label '" + name + "'", at, true);
            }
            return new Expression.Value(Expression.Origin.INTERNAL, null, 0, address);
        }
        List<long[]> defs = equs.get(name);
        if (defs != null) {
            long[] def = latestAtOrBefore(defs, s.line);
            if (def != null) {
                return Expression.Value.constant(def[1]);
            }
        }
        Long address = labels.get(name);
        if (address != null) {
            return new Expression.Value(Expression.Origin.INTERNAL, null, 0, address);
        }
        address = externals.get(name);
        if (address != null) {
            return new Expression.Value(Expression.Origin.EXTERNAL, name, 0, address);
        }
        throw new Expression.Failure("undefined label '" + name + "'", at, true);
    }

    private void data(Statement s, int width) {
        if (s.operands.isEmpty()) {
            throw s.error(s.column, s.word + " needs at least one value");
        }
        addData(s, new byte[s.operands.size() * width]);
        s.dataWidth = width; // encoded in pass 2: values may name labels defined later
    }

    /** Pass 2 of a data directive: each value, with an ABS32/ABS64 fixup where it names an address. */
    private void emitData(Statement s, byte[] out, int at) {
        int width = s.dataWidth;
        int offset = (int) (s.address - regions.get(s.region).address);
        for (Operand operand : s.operands) {
            Expression.Value v = evaluate(s, operand);
            long value = v.value();
            if (!v.isConstant()) {
                if (width < 4) {
                    throw s.error(operand.column(), "'" + operand.text() + "' is an address: " + s.word + " takes constants");
                }
                Fixup.Kind kind = width == 8 ? Fixup.Kind.ABS64 : Fixup.Kind.ABS32;
                fixups.add(absoluteFixup(s, offset, kind, v, operand));
            }
            if (width < 8) {
                long min = -(1L << (width * 8 - 1));
                long max = (1L << (width * 8)) - 1;
                if (value < min || value > max) {
                    throw s.error(operand.column(), "value " + operand.text() + " does not fit in " + width
                            + " byte" + (width == 1 ? "" : "s") + " (" + min + " to " + max + ")");
                }
            }
            for (int i = 0; i < width; i++) {
                out[at++] = (byte) (value >>> (8 * i));
            }
            offset += width;
        }
    }

    /** A fixup for an absolute use of an address: an external name, or a label of the text (moves with the region). */
    private Fixup absoluteFixup(Statement s, int offset, Fixup.Kind kind, Expression.Value v, Operand operand) {
        int col = operand.column() > 0 ? operand.column() : s.column;
        if (v.origin() == Expression.Origin.EXTERNAL) {
            return new Fixup(s.region, offset, kind, v.symbol(), v.addend(), offset, s.line, col);
        }
        return new Fixup(s.region, offset, kind, Fixup.REGION, v.value() - regions.get(s.region).address, offset, s.line, col);
    }

    private void insn(Statement s) {
        List<Operand> ops = s.operands;
        if (ops.isEmpty() || ops.size() > 2) {
            throw s.error(s.column, ".insn takes a length and a value (.insn 4, 0x00000013) or just the value");
        }
        Operand valueOperand = ops.get(ops.size() - 1);
        long value = constant(s, valueOperand);
        int encoded = Decoder.length((int) (value & 0xffff));
        int length;
        if (ops.size() == 2) {
            long given = constant(s, ops.get(0));
            if (given != 2 && given != 4 && given != 6 && given != 8) {
                throw s.error(ops.get(0).column(), ".insn length must be 2, 4, 6 or 8, not " + ops.get(0).text());
            }
            length = (int) given;
        } else {
            length = encoded;
        }
        if (encoded != length) {
            throw s.error(valueOperand.column(), "the value " + valueOperand.text() + " encodes a "
                    + (encoded < 0 ? "reserved-length" : encoded + "-byte") + " instruction, not a " + length + "-byte one");
        }
        if (length < 8 && (value >>> (8 * length)) != 0) {
            throw s.error(valueOperand.column(), "the value " + valueOperand.text() + " does not fit in " + length + " bytes");
        }
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (value >>> (8 * i));
        }
        Opcode op = length <= 4 ? isa.decoder(isa.extensions()).decode((int) value, length) : null;
        if (op != null) {
            noteWritten(op, (int) value);
        } else {
            written = ~1; // a word Splice does not know may write any register
        }
        addData(s, bytes);
    }

    private void align(Statement s, boolean powerOfTwo) {
        List<Operand> ops = s.operands;
        if (ops.isEmpty() || ops.size() > 3) {
            throw s.error(s.column, s.word + " takes " + (powerOfTwo ? "a power of two" : "a byte count")
                    + ", an optional fill byte and an optional maximum");
        }
        long n = constant(s, ops.get(0));
        long alignment;
        if (powerOfTwo) {
            if (n < 0 || n > 16) {
                throw s.error(ops.get(0).column(), s.word + " " + n + " is out of range (0 to 16)");
            }
            alignment = 1L << n;
        } else {
            if (n < 1 || n > (1 << 16) || Long.bitCount(n) != 1) {
                throw s.error(ops.get(0).column(), ".balign " + n + " must be a power of two from 1 to 65536");
            }
            alignment = n;
        }
        RegionBuilder region = currentRegion(s.line);
        long address = region.address + region.size;
        int pad = (int) ((alignment - Long.remainderUnsigned(address, alignment)) % alignment);
        if (ops.size() == 3) {
            long max = constant(s, ops.get(2));
            if (pad > max) {
                pad = 0; // GNU as: skip the alignment when it would need more than max bytes
            }
        }
        byte[] bytes = new byte[pad];
        if (ops.size() >= 2 && !ops.get(1).text().isEmpty()) {
            long fill = constant(s, ops.get(1));
            if (fill < -128 || fill > 255) {
                throw s.error(ops.get(1).column(), "fill value " + ops.get(1).text() + " does not fit in a byte");
            }
            java.util.Arrays.fill(bytes, (byte) fill);
        } else {
            // As GNU as 2.40 pads code: zero bytes up to 2-byte alignment, then one c.nop up to
            // 4-byte alignment (even under norvc), then 4-byte nops.
            int at = pad % 2;
            if (pad % 4 >= 2) {
                bytes[at++] = (byte) C_NOP;
                bytes[at++] = (byte) (C_NOP >>> 8);
            }
            while (at < pad) {
                for (int i = 0; i < 4; i++) {
                    bytes[at++] = (byte) (NOP >>> (8 * i));
                }
            }
        }
        addData(s, bytes);
    }

    private void zero(Statement s) {
        List<Operand> ops = s.operands;
        if (ops.isEmpty() || ops.size() > 2) {
            throw s.error(s.column, s.word + " takes a byte count and an optional fill byte");
        }
        long n = constant(s, ops.get(0));
        if (n < 0 || n > MAX_FILL_BYTES) {
            throw s.error(ops.get(0).column(), s.word + " " + ops.get(0).text() + " is out of range (0 to " + MAX_FILL_BYTES + ")");
        }
        byte[] bytes = new byte[(int) n];
        if (ops.size() == 2) {
            long fill = constant(s, ops.get(1));
            if (fill < -128 || fill > 255) {
                throw s.error(ops.get(1).column(), "fill value " + ops.get(1).text() + " does not fit in a byte");
            }
            java.util.Arrays.fill(bytes, (byte) fill);
        }
        addData(s, bytes);
    }

    private void addData(Statement s, byte[] bytes) {
        RegionBuilder region = currentRegion(s.line);
        s.place(regions.size() - 1, region.address + region.size, rvc, target);
        s.data = bytes;
        s.size = bytes.length;
        grow(region, s);
        statements.add(s);
    }

    // ---------------------------------------------------------------- pass 2: resolve and encode

    /** Notes the integer register an instruction writes, if any (its rd role, named or implied). */
    private void noteWritten(Opcode op, int bits) {
        if (op.has(dev.splice.isa.Operand.RD)) {
            Field f = op.field(dev.splice.isa.Operand.RD);
            if (f == null || f.type() == Field.Type.INTEGER_REGISTER) {
                written |= 1 << (int) op.operand(bits, dev.splice.isa.Operand.RD);
            }
        }
    }

    /** The absolute address a target operand names: number, label, local label, label+offset. */
    private long resolve(Statement s, Operand operand) {
        return evaluate(s, operand).value();
    }

    /** The definition of a local label that {@code 1b}/{@code 1f} names from {@code line}: binary search, not a scan. */
    private Long local(String reference, int line) {
        List<long[]> defs = localLabels.get(reference.substring(0, reference.length() - 1));
        if (defs == null) {
            return null;
        }
        int before = countAtOrBefore(defs, line);
        if (reference.endsWith("b")) {
            return before == 0 ? null : defs.get(before - 1)[1];
        }
        return before == defs.size() ? null : defs.get(before)[1];
    }

    /** The last {line, value} definition at or before {@code line}, or null. */
    private static long[] latestAtOrBefore(List<long[]> defs, int line) {
        int n = countAtOrBefore(defs, line);
        return n == 0 ? null : defs.get(n - 1);
    }

    /** How many of the {line, ...} definitions (in line order) are at or before {@code line}. */
    private static int countAtOrBefore(List<long[]> defs, int line) {
        int lo = 0;
        int hi = defs.size();
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (defs.get(mid)[0] <= line) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** One statement: an instruction, a pseudo-instruction or a data-producing directive. */
    private final class Statement {
        final int line;
        final int column;
        String word;
        final List<Operand> operands;
        int region;
        long address;
        int size;
        boolean rvc;
        Set<Extension> target;
        String targetName;
        Opcode opcode;
        boolean pseudo;
        /** A conditional branch to an external name, emitted as the inverted branch over a jal. */
        boolean farBranch;
        byte[] data;
        /** For .byte/.half/.word/.dword: the width of each value, encoded in pass 2. */
        int dataWidth;

        Statement(int line, int column, String word, List<Operand> operands) {
            this.line = line;
            this.column = column;
            this.word = word;
            this.operands = operands;
        }

        void place(int region, long address, boolean rvc, Set<Extension> target) {
            this.region = region;
            this.address = address;
            this.rvc = rvc;
            this.target = target;
            this.targetName = Assembler.this.targetName;
        }

        ListingException error(int atColumn, String message) {
            return new ListingException(file, line, atColumn > 0 ? atColumn : column, message);
        }

        Pseudos.Context context(boolean resolving) {
            return new Pseudos.Context() {
                @Override
                public long pc() {
                    return address;
                }

                @Override
                public long target(Operand operand) {
                    return resolving ? resolve(Statement.this, operand) : address;
                }

                @Override
                public Long constant(Operand operand) {
                    Expression.Value v = valueOrNull(operand);
                    return v != null && v.isConstant() ? v.value() : null;
                }

                @Override
                public boolean has(Extension extension) {
                    return target.contains(extension);
                }

                @Override
                public ListingException error(Operand operand, String message) {
                    return Statement.this.error(operand.column(), message);
                }

                @Override
                public ListingException error(String message) {
                    return Statement.this.error(column, message);
                }
            };
        }

        /** The operand's value, or null when it names something not defined (yet); other errors are thrown. */
        Expression.Value valueOrNull(Operand operand) {
            if (operand.text().isEmpty()) {
                return null;
            }
            try {
                return Expression.evaluate(operand.text(), (name, at) -> lookup(this, name, at));
            } catch (Expression.Failure f) {
                if (f.undefined) {
                    return null;
                }
                throw error(operand.column() > 0 ? operand.column() + f.at : column, f.getMessage());
            }
        }

        void emit(byte[] out) {
            RegionBuilder r = regions.get(region);
            int at = (int) (address - r.address);
            if (dataWidth > 0) {
                emitData(this, out, at);
                return;
            }
            if (data != null) {
                System.arraycopy(data, 0, out, at, data.length);
                return;
            }
            List<Operand> operands = rewritten();
            if (farBranch) {
                Pseudos.Step step = pseudo ? Pseudos.expand(word, operands, context(true)).get(0)
                        : new Pseudos.Step(word, OperandText.of(operands));
                OperandText ops = step.operands();
                Operand target = ops.get(ops.size() - 1);
                ops.set(ops.size() - 1, Operand.synthetic(".+8"));
                at = write(out, at, encode(opcode(this, INVERTED.get(step.mnemonic())), ops, address), 4);
                write(out, at, encode(opcode(this, "jal"), OperandText.of("zero", target), address + 4), 4);
            } else if (pseudo) {
                pcRelativeFixups();
                long pc = address;
                for (Pseudos.Step step : Pseudos.expand(word, operands, context(true))) {
                    Opcode op = opcode(this, step.mnemonic());
                    checkTarget(this, op);
                    at = write(out, at, encode(op, step.operands(), pc), op.size());
                    pc += op.size();
                }
            } else {
                write(out, at, encode(opcode, OperandText.of(operands), address), opcode.size());
            }
        }

        /** The operands with every expression and relocation function evaluated, except a branch or address target. */
        private List<Operand> rewritten() {
            List<Operand> result = new ArrayList<>(operands.size());
            boolean lastIsTarget = (opcode != null && opcode.hasBranchTarget()) || Pseudos.TARGETS.contains(word)
                    || CONDITIONAL.contains(word);
            for (int i = 0; i < operands.size(); i++) {
                Operand o = operands.get(i);
                result.add(lastIsTarget && i == operands.size() - 1 ? o : rewrite(o));
            }
            return result;
        }

        private Operand rewrite(Operand o) {
            String t = o.text();
            if (t.startsWith("%")) {
                int open = t.indexOf('(');
                int close = open < 0 ? -1 : matching(t, open);
                if (close < 0) {
                    throw error(o.column(), "'" + t + "': a relocation function takes (EXPRESSION)");
                }
                String name = t.substring(1, open).trim();
                long value = relocationFunction(name, t.substring(open + 1, close), o.column() + open + 1, o);
                return new Operand(value + t.substring(close + 1), o.column());
            }
            if (t.endsWith(")")) {
                int open = opening(t);
                String inner = open < 0 ? "" : t.substring(open + 1, t.length() - 1).trim();
                if (open >= 0 && Registers.isInteger(inner)) { // OFFSET(reg)
                    String prefix = t.substring(0, open).trim();
                    if (prefix.isEmpty() || isPlainNumber(prefix)) {
                        return o;
                    }
                    Operand offset = rewrite(new Operand(prefix, o.column()));
                    return new Operand(offset.text() + t.substring(open), o.column());
                }
            }
            if (isPlainNumber(t) || !(Expression.hasOperator(t) || equs.containsKey(t))) {
                return o; // a number, register, CSR, rounding mode or fence set: the encoder reads it
            }
            return new Operand(Long.toString(constant(this, o)), o.column());
        }

        /** %hi, %lo, %pcrel_hi, %pcrel_lo of an expression: the field value, with a fixup where it depends on the place. */
        private long relocationFunction(String name, String argument, int argumentColumn, Operand operand) {
            String mnemonic = opcode == null ? word : opcode.mnemonic();
            boolean upper = mnemonic.equals("lui") || mnemonic.equals("auipc") || mnemonic.equals("c.lui");
            int offset = (int) (address - regions.get(region).address);
            switch (name) {
                case "hi", "pcrel_hi" -> {
                    boolean pcrel = name.equals("pcrel_hi");
                    if (!mnemonic.equals(pcrel ? "auipc" : "lui")) {
                        throw error(operand.column(), "%" + name + " belongs on " + (pcrel ? "auipc" : "lui") + ", not on " + mnemonic);
                    }
                    Expression.Value v = evaluate(this, argument, argumentColumn);
                    long delta = pcrel ? v.value() - address : v.value();
                    long hi = (delta + 0x800) >> 12;
                    boolean placed = pcrel ? v.origin() != Expression.Origin.INTERNAL : !v.isConstant();
                    if (placed && (hi < -(1L << 19) || hi >= (1L << 19))) {
                        throw error(operand.column(), "%" + name + "(" + argument + ") = 0x" + Long.toHexString(v.value())
                                + (pcrel ? " is out of the +-2 GiB range of auipc from 0x" + Long.toHexString(address)
                                        : " is out of the signed 32-bit range of lui"));
                    }
                    if (placed) {
                        fixups.add(pcrel ? new Fixup(region, offset, Fixup.Kind.PCREL_HI20, v.symbol(), v.addend(), offset, line, operand.column())
                                : absoluteFixup(this, offset, Fixup.Kind.HI20, v, operand));
                    }
                    return hi & 0xfffff;
                }
                case "lo", "pcrel_lo" -> {
                    if (upper) {
                        throw error(operand.column(), "%" + name + " belongs on an instruction with a 12-bit immediate, not on " + mnemonic);
                    }
                    boolean store = opcode != null && opcode.has(dev.splice.isa.Operand.RS2) && !opcode.has(dev.splice.isa.Operand.RD);
                    if (name.equals("lo")) {
                        Expression.Value v = evaluate(this, argument, argumentColumn);
                        if (!v.isConstant()) {
                            fixups.add(absoluteFixup(this, offset, store ? Fixup.Kind.LO12_S : Fixup.Kind.LO12_I, v, operand));
                        }
                        return low12(v.value());
                    }
                    return pcrelLow(argument, argumentColumn, operand, store, offset);
                }
                default -> throw error(operand.column(), "unknown relocation function '%" + name
                        + "' (known: %hi, %lo, %pcrel_hi, %pcrel_lo)");
            }
        }

        /** %pcrel_lo(LABEL): the low part of what the auipc at LABEL computes, as GNU as. */
        private long pcrelLow(String argument, int argumentColumn, Operand operand, boolean store, int offset) {
            Expression.Value label = evaluate(this, argument, argumentColumn);
            Statement auipc = label.origin() == Expression.Origin.INTERNAL ? auipcs.get(label.value()) : null;
            String hiText = auipc == null || auipc.operands.size() != 2 ? "" : auipc.operands.get(1).text();
            if (auipc == null || auipc.region != region || !hiText.startsWith("%pcrel_hi(") || !hiText.endsWith(")")) {
                throw error(argumentColumn, "%pcrel_lo(" + argument + ") must name the label of an auipc with %pcrel_hi in this region");
            }
            Operand hiOperand = auipc.operands.get(1);
            Expression.Value v = evaluate(auipc, hiText.substring(10, hiText.length() - 1), hiOperand.column() + 10);
            if (v.origin() != Expression.Origin.INTERNAL) {
                int anchor = (int) (auipc.address - regions.get(region).address);
                fixups.add(new Fixup(region, offset, store ? Fixup.Kind.PCREL_LO12_S : Fixup.Kind.PCREL_LO12_I, v.symbol(),
                        v.addend(), anchor, line, operand.column()));
            }
            return low12(v.value() - auipc.address);
        }

        /** call, tail, la, lla of an external name or an absolute address: one or two fixups. */
        private void pcRelativeFixups() {
            boolean call = word.equals("call") || word.equals("tail");
            if (!call && !word.equals("la") && !word.equals("lla")) {
                return;
            }
            Operand target = operands.get(operands.size() - 1);
            Expression.Value ref = evaluate(this, target);
            if (ref.origin() == Expression.Origin.INTERNAL || (!call && ref.isConstant())) {
                return; // moves with the auipc: the offset stays; la of a constant is li
            }
            int offset = (int) (address - regions.get(region).address);
            if (call) {
                addFixup(offset, Fixup.Kind.CALL, ref, offset, target);
            } else {
                addFixup(offset, Fixup.Kind.PCREL_HI20, ref, offset, target);
                addFixup(offset + 4, Fixup.Kind.PCREL_LO12_I, ref, offset, target);
            }
        }

        private void addFixup(int offset, Fixup.Kind kind, Expression.Value ref, int anchor, Operand operand) {
            int col = operand.column() > 0 ? operand.column() : column;
            fixups.add(new Fixup(region, offset, kind, ref.symbol(), ref.addend(), anchor, line, col));
        }

        /** A branch or jump to an external name or an absolute address: a fixup by its format. */
        private void branchFixup(Opcode op, Expression.Value ref, long pc, Operand operand) {
            if (ref.origin() == Expression.Origin.INTERNAL) {
                return;
            }
            Fixup.Kind kind;
            if (op.size() == 2) {
                kind = op.mnemonic().equals("c.beqz") || op.mnemonic().equals("c.bnez")
                        ? Fixup.Kind.RVC_BRANCH : Fixup.Kind.RVC_JUMP;
            } else {
                kind = op.mnemonic().equals("jal") ? Fixup.Kind.JAL : Fixup.Kind.BRANCH;
            }
            int offset = (int) (pc - regions.get(region).address);
            addFixup(offset, kind, ref, offset, operand);
        }


        private int encode(Opcode op, OperandText ops, long pc) {
            for (int i = 0; i < ops.size(); i++) {
                if (ops.get(i).text().isEmpty()) {
                    throw error(ops.get(i).column(), "empty operand");
                }
            }
            if (op.hasBranchTarget() && ops.size() > 0) {
                // Resolve labels here, and give the encoder numbers in signed form: a target that
                // wraps below address 0 (0xffff...) is then still target - pc.
                Operand last = ops.get(ops.size() - 1);
                Expression.Value ref = evaluate(this, last);
                branchFixup(op, ref, pc, last);
                long target = ref.value();
                String signed = target < 0 ? "-" + Hex.of(-target) : Hex.of(target);
                ops.set(ops.size() - 1, new Operand(signed, last.column()));
            }
            String text = ops.text();
            try {
                int bits = Encoder.assemble(op, text, pc, name -> resolve(this, new Operand(name, operandColumn(name))));
                noteWritten(op, bits);
                return bits;
            } catch (OperandException e) {
                int fallback = operands.isEmpty() ? column : operands.get(0).column();
                throw error(ops.sourceColumn(e.column(), fallback), e.getMessage());
            }
        }

        private int operandColumn(String name) {
            for (Operand operand : operands) {
                int at = operand.text().indexOf(name);
                if (at >= 0) {
                    return operand.column() + at;
                }
            }
            return column;
        }

        private int write(byte[] out, int at, int bits, int length) {
            for (int i = 0; i < length; i++) {
                out[at + i] = (byte) (bits >>> (8 * i));
            }
            return at + length;
        }
    }

    private static long low12(long value) {
        return ((value & 0xfff) ^ 0x800) - 0x800;
    }

    private static boolean isPlainNumber(String text) {
        if (!Numbers.looksNumeric(text)) {
            return false;
        }
        try {
            Numbers.parse(text);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The index of the ')' closing the '(' at {@code open}, or -1. */
    private static int matching(String t, int open) {
        int depth = 0;
        for (int i = open; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    /** The index of the '(' matching the final ')' of {@code t}, or -1. */
    private static int opening(String t) {
        int depth = 0;
        for (int i = t.length() - 1; i >= 0; i--) {
            char c = t.charAt(i);
            if (c == ')') {
                depth++;
            } else if (c == '(' && --depth == 0) {
                return i;
            }
        }
        return -1;
    }

    private static final class RegionBuilder {
        final Region.Kind kind;
        final String name;
        final long address;
        final int line;
        long size;
        boolean implicit = true;

        RegionBuilder(Region.Kind kind, String name, long address, int line) {
            this.kind = kind;
            this.name = name;
            this.address = address;
            this.line = line;
        }
    }
}
