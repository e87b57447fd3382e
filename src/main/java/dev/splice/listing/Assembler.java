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
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
    private final Deque<Boolean> optionStack = new ArrayDeque<>();
    private final List<Fixup> fixups = new ArrayList<>();
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
        return assemble(Files.readString(listing, StandardCharsets.UTF_8), listing.toString());
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
        String word = line.substring(pos, wordEnd).toLowerCase(Locale.ROOT);
        List<Operand> operands = Operand.split(line, wordEnd, end);
        Statement s = new Statement(lineNo, pos + 1, word, operands);
        if (word.startsWith(".")) {
            directive(s);
        } else {
            instruction(s);
        }
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
        if (Pseudos.handles(s.word, s.operands.size())) {
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

    /** True if the statement's last operand names an external (and not a label defined so far). */
    private boolean namesExternal(Statement s) {
        if (s.operands.isEmpty()) {
            return false;
        }
        String name = symbolPart(s.operands.get(s.operands.size() - 1).text());
        return externals.containsKey(name) && !labels.containsKey(name);
    }

    /** "name" of "name", "name+N", "name-N". */
    private static String symbolPart(String text) {
        int split = Math.max(text.lastIndexOf('+'), text.lastIndexOf('-'));
        return split > 0 ? text.substring(0, split).trim() : text;
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
        if (op.extension() == Extension.C && !s.rvc) {
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
            case ".option" -> {
                requireCount(s, 1, ".option rvc|norvc|push|pop");
                switch (ops.get(0).text()) {
                    case "rvc" -> rvc = true;
                    case "norvc" -> rvc = false;
                    case "push" -> optionStack.push(rvc);
                    case "pop" -> {
                        if (optionStack.isEmpty()) {
                            throw s.error(ops.get(0).column(), ".option pop without .option push");
                        }
                        rvc = optionStack.pop();
                    }
                    default -> throw s.error(ops.get(0).column(), "unknown .option '" + ops.get(0).text()
                            + "' (known: rvc, norvc, push, pop)");
                }
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

    private void requireCount(Statement s, int count, String usage) {
        if (s.operands.size() != count) {
            throw s.error(s.column, s.word + " takes " + count + " operand" + (count == 1 ? "" : "s") + ": " + usage);
        }
    }

    private void startRegion(Statement s, Region.Kind kind, String name, Operand addressOperand) {
        long address = number(s, addressOperand);
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

    private long number(Statement s, Operand operand) {
        try {
            return Numbers.parse(operand.text());
        } catch (NumberFormatException e) {
            throw s.error(operand.column(), e.getMessage());
        }
    }

    private void data(Statement s, int width) {
        if (s.operands.isEmpty()) {
            throw s.error(s.column, s.word + " needs at least one value");
        }
        byte[] bytes = new byte[s.operands.size() * width];
        int at = 0;
        for (Operand operand : s.operands) {
            long value = number(s, operand);
            if (width < 8) {
                long min = -(1L << (width * 8 - 1));
                long max = (1L << (width * 8)) - 1;
                if (value < min || value > max) {
                    throw s.error(operand.column(), "value " + operand.text() + " does not fit in " + width
                            + " byte" + (width == 1 ? "" : "s") + " (" + min + " to " + max + ")");
                }
            }
            for (int i = 0; i < width; i++) {
                bytes[at++] = (byte) (value >>> (8 * i));
            }
        }
        addData(s, bytes);
    }

    private void insn(Statement s) {
        List<Operand> ops = s.operands;
        if (ops.isEmpty() || ops.size() > 2) {
            throw s.error(s.column, ".insn takes a length and a value (.insn 4, 0x00000013) or just the value");
        }
        Operand valueOperand = ops.get(ops.size() - 1);
        long value = number(s, valueOperand);
        int encoded = Decoder.length((int) (value & 0xffff));
        int length;
        if (ops.size() == 2) {
            long given = number(s, ops.get(0));
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
        long n = number(s, ops.get(0));
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
            long max = number(s, ops.get(2));
            if (pad > max) {
                pad = 0; // GNU as: skip the alignment when it would need more than max bytes
            }
        }
        byte[] bytes = new byte[pad];
        if (ops.size() >= 2 && !ops.get(1).text().isEmpty()) {
            long fill = number(s, ops.get(1));
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
        long n = number(s, ops.get(0));
        if (n < 0 || n > MAX_FILL_BYTES) {
            throw s.error(ops.get(0).column(), s.word + " " + ops.get(0).text() + " is out of range (0 to " + MAX_FILL_BYTES + ")");
        }
        byte[] bytes = new byte[(int) n];
        if (ops.size() == 2) {
            long fill = number(s, ops.get(1));
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

    /** Where a resolved operand's value comes from: it decides whether a use needs a fixup. */
    private enum Origin {
        /** A number: an absolute address. */
        ABSOLUTE,
        /** A label of the text, a local label or {@code .}: moves with the region. */
        INTERNAL,
        /** A name from the caller's map. */
        EXTERNAL
    }

    /** A resolved target operand: its value, origin and, for an external, the name and addend. */
    private record Reference(Origin origin, String symbol, long addend, long value) {}

    /** The absolute address a target operand names: number, label, local label, label+offset. */
    private long resolve(Statement s, Operand operand) {
        return reference(s, operand).value();
    }

    /** The target operand's value and where it comes from. */
    private Reference reference(Statement s, Operand operand) {
        String text = operand.text();
        if (text.isEmpty()) {
            throw s.error(operand.column() > 0 ? operand.column() : s.column, "empty operand");
        }
        if (Numbers.looksNumeric(text)) {
            long value = number(s, operand);
            return new Reference(Origin.ABSOLUTE, null, value, value);
        }
        String name = text;
        long offset = 0;
        int split = Math.max(text.lastIndexOf('+'), text.lastIndexOf('-'));
        if (split > 0) {
            name = text.substring(0, split).trim();
            try {
                offset = Numbers.parse(text.substring(split));
            } catch (NumberFormatException e) {
                throw s.error(operand.column() + split, e.getMessage());
            }
        }
        Long address;
        Origin origin = Origin.INTERNAL;
        if (name.equals(".")) {
            address = s.address; // GNU as: the address of the statement
        } else if (Numbers.isLocalReference(name)) {
            address = local(name, s.line);
        } else {
            address = labels.get(name);
            if (address == null) {
                address = externals.get(name);
                origin = Origin.EXTERNAL;
            }
        }
        if (address == null) {
            throw s.error(operand.column() > 0 ? operand.column() : s.column, "undefined label '" + name + "'");
        }
        return new Reference(origin, origin == Origin.EXTERNAL ? name : null, offset, address + offset);
    }

    private Long local(String reference, int line) {
        List<long[]> defs = localLabels.get(reference.substring(0, reference.length() - 1));
        if (defs == null) {
            return null;
        }
        boolean backward = reference.endsWith("b");
        Long found = null;
        for (long[] def : defs) {
            if (backward && def[0] <= line) {
                found = def[1];
            } else if (!backward && def[0] > line) {
                return def[1];
            }
        }
        return found;
    }

    /** One statement: an instruction, a pseudo-instruction or a data-producing directive. */
    private final class Statement {
        final int line;
        final int column;
        final String word;
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
                public ListingException error(Operand operand, String message) {
                    return Statement.this.error(operand.column(), message);
                }

                @Override
                public ListingException error(String message) {
                    return Statement.this.error(column, message);
                }
            };
        }

        void emit(byte[] out) {
            RegionBuilder r = regions.get(region);
            int at = (int) (address - r.address);
            if (data != null) {
                System.arraycopy(data, 0, out, at, data.length);
            } else if (farBranch) {
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

        /** call, tail, la, lla of an external name or an absolute address: one or two fixups. */
        private void pcRelativeFixups() {
            boolean call = word.equals("call") || word.equals("tail");
            if (!call && !word.equals("la") && !word.equals("lla")) {
                return;
            }
            Operand target = operands.get(operands.size() - 1);
            Reference ref = reference(this, target);
            if (ref.origin() == Origin.INTERNAL) {
                return; // moves with the auipc: the offset stays
            }
            int offset = (int) (address - regions.get(region).address);
            if (call) {
                addFixup(offset, Fixup.Kind.CALL, ref, offset, target);
            } else {
                addFixup(offset, Fixup.Kind.PCREL_HI20, ref, offset, target);
                addFixup(offset + 4, Fixup.Kind.PCREL_LO12_I, ref, offset, target);
            }
        }

        private void addFixup(int offset, Fixup.Kind kind, Reference ref, int anchor, Operand operand) {
            int col = operand.column() > 0 ? operand.column() : column;
            fixups.add(new Fixup(region, offset, kind, ref.symbol(), ref.addend(), anchor, line, col));
        }

        /** A branch or jump to an external name or an absolute address: a fixup by its format. */
        private void branchFixup(Opcode op, Reference ref, long pc, Operand operand) {
            if (ref.origin() == Origin.INTERNAL) {
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
                Reference ref = reference(this, last);
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
