package dev.splice.listing;

import dev.splice.isa.Decoder;
import dev.splice.isa.Extension;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.isa.Printer;
import dev.splice.isa.TargetNamer;
import dev.splice.isa.TextBuffer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Writes the listing of code regions: a {@code .target} line naming the extensions the code
 * uses, then per region a region line ({@code .section NAME, ADDR}, {@code .function NAME, ADDR}
 * or {@code .origin ADDR}) and one instruction per line in exact form. Branch targets that are
 * instruction boundaries inside the region become labels {@code .L<hex address>}; other targets
 * stay absolute addresses with a {@code <symbol+offset>} comment. Each line ends with a comment
 * giving the address and the instruction word, which the assembler ignores.
 *
 * <p>Two passes per region over one decode (boundaries and targets, then text), rendered as bytes
 * ({@link TextBuffer}) with no allocation per instruction.
 */
public final class ListingWriter {
    /**
     * Every extension the table has instructions of (so every row is disassembled); the listing's
     * .target names the ones actually used.
     */
    static final Set<Extension> ALL_EXTENSIONS = Isa.rv64().extensions();
    /** What every listing's target includes, used or not: "rv64gc". */
    static final Set<Extension> BASE_TARGET = EnumSet.of(Extension.I, Extension.M, Extension.A,
            Extension.F, Extension.D, Extension.C, Extension.ZICSR, Extension.ZIFENCEI);

    /** Column where the address/bytes comment starts. */
    private static final int COMMENT_COLUMN = 40;
    private static final int INDENT_WIDTH = 8;
    private static final byte[] LABEL_PREFIX = TextBuffer.ascii(".L");
    private static final byte[] LABEL_END = TextBuffer.ascii(":\n");
    private static final byte[] HEX_PREFIX = TextBuffer.ascii("0x");
    private static final byte[] PAIR_PREFIX = TextBuffer.ascii(" = 0x");
    private static final byte[] SYMBOL_START = TextBuffer.ascii(" <");
    /** Bytes of code per parallel chunk. */
    private static final int CHUNK_BYTES = 128 * 1024;
    /** Text written to the output at a time when rendering on the calling thread. */
    private static final int DRAIN_BYTES = 32 * 1024;

    private final Decoder decoder;
    private final Printer printer;
    private final SymbolMap symbols;
    /** Per opcode id, a bit per Extension ordinal (fewer than 64) of what the row uses under the decoder's set. */
    private final long[] usedBits;

    /**
     * @param aliases print readable aliases (li, mv, ret, ...) instead of the exact form; such a
     *     listing is for reading and is not guaranteed to reassemble to the same bytes
     * @param symbols names for comments on targets outside the region and for function headings
     */
    public ListingWriter(boolean aliases, SymbolMap symbols) {
        this(aliases, symbols, ALL_EXTENSIONS);
    }

    /**
     * A writer that decodes only the instructions of the given extensions: what they do not
     * enable is listed raw ({@code .insn}), as llvm-objdump does with {@code --mattr}.
     *
     * @param aliases as {@link #ListingWriter(boolean, SymbolMap)}
     * @param symbols as {@link #ListingWriter(boolean, SymbolMap)}
     * @param extensions the extensions whose instructions are decoded
     */
    public ListingWriter(boolean aliases, SymbolMap symbols, Set<Extension> extensions) {
        this.decoder = Decoders.of(extensions);
        this.printer = aliases ? Printer.ALIASES : Printer.EXACT;
        this.symbols = symbols == null ? SymbolMap.EMPTY : symbols;
        List<Opcode> opcodes = Isa.rv64().opcodes();
        this.usedBits = new long[opcodes.size()];
        for (Opcode op : opcodes) {
            if (op.enabledBy(extensions)) {
                for (Extension e : op.usedIn(extensions)) {
                    usedBits[op.id()] |= 1L << e.ordinal();
                }
            }
        }
    }

    /** An exact-form writer without symbols. */
    public ListingWriter() {
        this(false, SymbolMap.EMPTY);
    }

    /**
     * The listing of the regions as text.
     *
     * @param regions the code to list, in order
     * @return the listing (ASCII)
     */
    public String toText(List<Region> regions) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            write(regions, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString(StandardCharsets.US_ASCII);
    }

    /**
     * Writes the listing of the regions (one .target line for all of them) to {@code out}.
     *
     * @param regions the code to list, in order
     * @param out where the listing goes (ASCII); flushed, left open
     * @throws IOException if {@code out} fails
     */
    public void write(List<Region> regions, OutputStream out) throws IOException {
        Labels[] labels = new Labels[regions.size()];
        EnumSet<Extension> used = EnumSet.copyOf(BASE_TARGET);
        boolean[] overlapping = overlapping(regions);
        for (int i = 0; i < labels.length; i++) {
            labels[i] = scan(regions.get(i), used);
            labels[i].suffix = overlapping[i] ? TextBuffer.ascii("_r" + i) : null;
        }
        TextBuffer text = new TextBuffer(DRAIN_BYTES + 4096);
        text.append(".target ").append(Extension.targetName(used)).append((byte) '\n');
        // One cache for every region listed on this thread: a cache per region allocated 266 KB for
        // each, and a file of many small functions or sections has thousands.
        TextCache cache = new TextCache();
        for (int i = 0; i < labels.length; i++) {
            writeRegion(regions.get(i), labels[i], text, out, cache);
        }
        text.drainTo(out);
        out.flush();
    }

    /**
     * Which regions start inside an earlier one in address order (forged or unusual section
     * tables): their labels get the suffix {@code _r<index>}, since {@code .L<address>} alone would be
     * defined twice. Of two overlapping regions at least one is marked, so every label is unique.
     */
    private static boolean[] overlapping(List<Region> regions) {
        Integer[] order = new Integer[regions.size()];
        for (int i = 0; i < order.length; i++) {
            order[i] = i;
        }
        java.util.Arrays.sort(order, (a, b) -> Long.compareUnsigned(regions.get(a).address(), regions.get(b).address()));
        boolean[] out = new boolean[order.length];
        long furthestEnd = 0; // of the regions before, in address order (0: none yet)
        for (Integer i : order) {
            Region r = regions.get(i);
            long end = r.address() + r.bytes().length;
            out[i] = r.bytes().length > 0 && Long.compareUnsigned(r.address(), furthestEnd) < 0;
            if (Long.compareUnsigned(end, furthestEnd) > 0) {
                furthestEnd = end;
            }
        }
        return out;
    }

    /**
     * The extensions the regions use (at least rv64gc), as the listing's .target names them.
     *
     * @param regions the code to scan
     * @return the target string, e.g. {@code rv64gc_zba_zbb}
     */
    public String targetOf(List<Region> regions) {
        EnumSet<Extension> used = EnumSet.copyOf(BASE_TARGET);
        for (Region region : regions) {
            scan(region, used);
        }
        return Extension.targetName(used);
    }

    /**
     * Pass 1: decodes the sweep once (kept for pass 2), marks instruction boundaries and branch
     * targets inside the region, collects the extensions used.
     */
    private Labels scan(Region region, Set<Extension> used) {
        byte[] bytes = region.bytes();
        int[] items = new int[bytes.length / 2 + 1];
        int count = decoder.decodeAll(bytes, 0, bytes.length, items);
        Labels labels = new Labels(region.address(), bytes.length, items);
        long extensions = 0; // bit per Extension ordinal (fewer than 64): cheaper than EnumSet.add
        int offset = 0;
        for (int i = 0; i < count; i++) {
            int packed = items[i];
            labels.markBoundary(offset);
            Opcode op = decoder.opcode(packed);
            if (op != null) {
                extensions |= usedBits[op.id()];
                if (op.hasBranchTarget()) {
                    long pc = region.address() + offset;
                    labels.markTarget(pc + op.branchOffset(wordAt(bytes, offset, Decoder.size(packed))));
                }
            }
            offset += Decoder.size(packed);
        }
        for (Extension extension : Extension.values()) {
            if ((extensions & 1L << extension.ordinal()) != 0) {
                used.add(extension);
            }
        }
        return labels;
    }

    /** The little-endian instruction word of 2 or 4 bytes at {@code offset}. */
    private static int wordAt(byte[] bytes, int offset, int size) {
        int word = (bytes[offset] & 0xff) | (bytes[offset + 1] & 0xff) << 8;
        return size == 2 ? word : word | (bytes[offset + 2] & 0xff) << 16 | (bytes[offset + 3] & 0xff) << 24;
    }

    /** Pass 2: the text, in chunks rendered in parallel on big regions and written in order. */
    private void writeRegion(Region region, Labels labels, TextBuffer text, OutputStream out, TextCache cache)
            throws IOException {
        long base = region.address();
        text.append(region.kind().directive()).append((byte) ' ');
        if (region.kind() != Region.Kind.RAW) {
            if (region.name().isEmpty()) {
                // No section name table: a stable placeholder the assembler reads back (was ".section , ADDR").
                text.append(UNNAMED_PREFIX).appendHex(base);
            } else {
                appendName(text, region.name(), true);
            }
            text.append(", ");
        }
        text.append("0x").appendHex(base);
        text.append("    # ").appendDecimal(region.bytes().length).append(" bytes\n");
        int length = region.bytes().length;
        int threads = Math.min(Runtime.getRuntime().availableProcessors(), 8);
        if (threads < 2 || length < 2 * CHUNK_BYTES) {
            writeRange(region, labels, 0, 0, length, text, out, cache);
            return;
        }
        text.drainTo(out);
        ExecutorService pool = Executors.newFixedThreadPool(threads, runnable -> {
            Thread thread = new Thread(runnable, "splice-listing");
            thread.setDaemon(true);
            return thread;
        });
        try {
            // At most 2 chunks per thread in flight: bounded memory, in-order output. Their
            // buffers are reused once written: a few MiB each, they would otherwise fill the young
            // generation and cost a collection per run.
            Deque<Future<TextBuffer>> inFlight = new ArrayDeque<>();
            Queue<TextBuffer> free = new ConcurrentLinkedQueue<>();
            int from = 0;
            int item = 0;
            while (from < length || !inFlight.isEmpty()) {
                while (from < length && inFlight.size() < 2 * threads) {
                    int to = chunkEnd(region.bytes(), labels, Math.min(length, from + CHUNK_BYTES));
                    int start = from;
                    int firstItem = item;
                    inFlight.add(pool.submit(() -> render(region, labels, firstItem, start, to, free.poll())));
                    item += labels.boundariesIn(from, to);
                    from = to;
                }
                TextBuffer done = inFlight.removeFirst().get();
                done.drainTo(out);
                free.add(done);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw new IOException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A chunk end at an instruction boundary at or after {@code offset} that does not separate an
     * auipc from the instruction after it (their pair comment must not depend on the chunking).
     */
    private static int chunkEnd(byte[] bytes, Labels labels, int offset) {
        int end = labels.boundaryAtOrAfter(offset);
        while (end < labels.length && end >= 4 && labels.isBoundary(end - 4) && !labels.isBoundary(end - 2)
                && (bytes[end - 4] & 0x7f) == 0x17) {
            end = labels.boundaryAtOrAfter(end + 1);
        }
        return end;
    }

    /** Renders a chunk into {@code reuse} (empty) or a new buffer. */
    private TextBuffer render(Region region, Labels labels, int firstItem, int from, int to, TextBuffer reuse)
            throws IOException {
        TextBuffer text = reuse != null ? reuse : new TextBuffer((to - from) * 24);
        writeRange(region, labels, firstItem, from, to, text, null, new TextCache());
        return text;
    }

    /**
     * The lines of region bytes [from, to), both instruction boundaries, the first one the sweep's
     * item {@code firstItem}, appended to {@code text}; with a non-null {@code out}, drained to it
     * every {@link #DRAIN_BYTES}.
     */
    private void writeRange(Region region, Labels labels, int firstItem, int from, int to, TextBuffer text,
            OutputStream out, TextCache cache) throws IOException {
        long base = region.address();
        List<SymbolMap.Entry> headings = symbols.startingIn(base + from, base + to);
        int headingCount = headings.size();
        int nextHeading = 0;
        long headingAt = headingCount > 0 ? headings.get(0).address() : 0; // of the next heading
        Namer namer = new Namer(labels);
        InstructionCursor cursor = new InstructionCursor(region.bytes(), decoder, labels.items, firstItem, from, to);
        PcRelativePair pair = new PcRelativePair();
        // Addresses in the range nearly always have the same number of hex digits: count once.
        int pcDigits = hexDigits(base + from) == hexDigits(base + Math.max(from, to - 1)) ? hexDigits(base + from) : 0;
        while (cursor.advance()) {
            long pc = base + cursor.offset;
            boolean paired = pair.next(cursor, pc);
            while (nextHeading < headingCount && Long.compareUnsigned(headingAt, pc) <= 0) {
                heading(region, headings.get(nextHeading++), pc, text);
                headingAt = nextHeading < headingCount ? headings.get(nextHeading).address() : 0;
            }
            if (labels.isLabel(cursor.offset)) {
                text.append(LABEL_PREFIX).appendHex(pc);
                if (labels.suffix != null) {
                    text.append(labels.suffix);
                }
                text.append(LABEL_END);
            }
            int lineStart = text.length();
            namer.outside = false;
            InstructionCursor.Kind kind = cursor.kind; // ifs, not an enum switch: cheaper under C1
            int word = (int) cursor.bits;
            boolean cacheable = kind == InstructionCursor.Kind.INSTRUCTION && !cursor.opcode.hasBranchTarget();
            if (!cacheable || !cache.appendTo(text, word)) {
                text.spaces(INDENT_WIDTH);
                if (kind == InstructionCursor.Kind.INSTRUCTION) {
                    printer.print(cursor.opcode, word, pc, text, namer);
                } else if (kind == InstructionCursor.Kind.RAW) {
                    text.append(".insn ").appendDecimal(cursor.size).append(", 0x").appendHex(cursor.bits, cursor.size * 2);
                } else {
                    text.append(".byte ");
                    for (int i = 0; i < cursor.size; i++) {
                        text.append(i == 0 ? "0x" : ", 0x").appendHex(cursor.byteAt(cursor.offset + i), 2);
                    }
                }
                int pad = COMMENT_COLUMN - (text.length() - lineStart);
                text.spaces(Math.max(1, pad));
                if (cacheable) {
                    cache.put(word, text, lineStart);
                }
            }
            // The comment "# pc: word" written in one claimed stretch: fewer capacity checks.
            int at = text.claim(40);
            byte[] b = text.array();
            b[at++] = '#';
            b[at++] = ' ';
            at = TextBuffer.putHex(b, at, pc, pcDigits > 0 ? pcDigits : hexDigits(pc));
            b[at++] = ':';
            b[at++] = ' ';
            if (kind == InstructionCursor.Kind.BYTES) {
                for (int i = 0; i < cursor.size; i++) {
                    if (i > 0) {
                        b[at++] = ' ';
                    }
                    at = TextBuffer.putHex(b, at, cursor.byteAt(cursor.offset + i), 2);
                }
            } else {
                at = TextBuffer.putHex(b, at, cursor.bits, cursor.size * 2);
            }
            text.setLength(at);
            if (paired) { // the address an auipc pair computes, to read (and to write as lla/call when editing)
                text.append(PAIR_PREFIX).appendHex(pair.address);
                int mark = text.length();
                text.append(SYMBOL_START);
                if (symbols.append(text, pair.address)) {
                    text.append((byte) '>');
                } else {
                    text.setLength(mark);
                }
            }
            if (namer.outside) {
                text.append(SYMBOL_START);
                if (!symbols.append(text, namer.outsideTarget)) {
                    text.append("0x").appendHex(namer.outsideTarget);
                }
                text.append((byte) '>');
            }
            text.append((byte) '\n');
            if (out != null && text.length() > DRAIN_BYTES) {
                text.drainTo(out);
            }
        }
        while (nextHeading < headings.size()) { // symbols inside the range's last instruction
            heading(region, headings.get(nextHeading++), base + to, text);
        }
        if (out != null) {
            text.drainTo(out);
        }
    }

    /** The number of hex digits of an unsigned address without leading zeros (1 for zero). */
    private static int hexDigits(long value) {
        return value == 0 ? 1 : ((63 - Long.numberOfLeadingZeros(value)) >> 2) + 1;
    }

    /** A comment line naming a symbol (function) that starts here. */
    private static void heading(Region region, SymbolMap.Entry heading, long pc, TextBuffer text) {
        if (region.kind() == Region.Kind.FUNCTION && heading.address() == region.address()) {
            return; // the region line already names it
        }
        text.append("\n# ");
        appendName(text, heading.name(), false);
        if (heading.address() != pc) {
            text.append(" (starts at 0x").appendHex(heading.address()).append(", inside an instruction)");
        }
        text.append((byte) '\n');
    }

    /** The name a listing gives a region without one: this prefix and the region's address in hex. */
    static final String UNNAMED_PREFIX = "unnamed_0x";

    /**
     * A symbol name as the listing prints it: control characters (a newline would turn the rest of a
     * forged name into code), DEL and non-ASCII are written as {@code \xNN} escapes (four hex digits past 0xff), so no name can
     * end its line. In a region line ({@code operand}) also {@code #}, {@code ,}, spaces and
     * parentheses, which would start a comment, end the operand, be trimmed away or open a group
     * that hides the comma before the address (forged section names {@code a#b} and {@code (text}
     * lost the line's address). Other names are written as they are.
     */
    static void appendName(TextBuffer text, String name, boolean operand) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c < 0x20 || c >= 0x7f || operand && (c == '#' || c == ',' || c == ' ' || c == '(' || c == ')')) {
                text.append(c > 0xff ? String.format("\\u%04x", (int) c) : String.format("\\x%02x", (int) c));
            } else {
                text.append((byte) c);
            }
        }
    }

    /** Prints in-region targets at instruction boundaries as labels, others as absolute addresses. */
    private static final class Namer implements TargetNamer {
        private final Labels labels;
        boolean outside;
        long outsideTarget;

        Namer(Labels labels) {
            this.labels = labels;
        }

        @Override
        public void append(TextBuffer out, long pc, long target) {
            long offset = target - labels.base;
            if (offset >= 0 && offset < labels.length && labels.isLabel((int) offset)) {
                out.append(LABEL_PREFIX).appendHex(target);
                if (labels.suffix != null) {
                    out.append(labels.suffix);
                }
            } else {
                out.append(HEX_PREFIX).appendHex(target);
                outside = true;
                outsideTarget = target;
            }
        }

        @Override
        public void append(StringBuilder out, long pc, long target) {
            TextBuffer text = new TextBuffer(24);
            append(text, pc, target);
            out.append(text);
        }
    }

    /**
     * Recognizes an auipc followed directly by an instruction that adds its low 12 bits to the
     * same register (addi, loads, stores, jalr) and computes the address the pair reaches.
     */
    private static final class PcRelativePair {
        private int register = -1;
        private long high;
        long address;

        /** Feeds the next item; true when it completes a pair ({@link #address} is then set). */
        boolean next(InstructionCursor cursor, long pc) {
            boolean completes = false;
            if (cursor.kind != InstructionCursor.Kind.INSTRUCTION || cursor.size != 4) {
                register = -1;
                return false;
            }
            int word = (int) cursor.bits;
            int opcode = word & 0x7f;
            if (register > 0 && ((word >>> 15) & 0x1f) == register) {
                int funct3 = (word >>> 12) & 7;
                boolean iType = (opcode == 0x13 && funct3 == 0) || opcode == 0x03 || opcode == 0x07
                        || (opcode == 0x67 && funct3 == 0);
                boolean sType = opcode == 0x23 || opcode == 0x27;
                if (iType) {
                    address = high + (word >> 20);
                    completes = true;
                } else if (sType) {
                    address = high + (((word >> 25) << 5) | ((word >>> 7) & 0x1f));
                    completes = true;
                }
            }
            if (opcode == 0x17) {
                register = (word >>> 7) & 0x1f;
                high = pc + (word & 0xfffff000);
            } else {
                register = -1;
            }
            return completes;
        }
    }

    /**
     * Bit sets over the region's byte offsets: instruction boundaries and branch targets; and the
     * sweep's packed decode results, item by item.
     */
    static final class Labels {
        final long base;
        final int length;
        final int[] items;
        /** Appended to every label of a region that overlaps another ({@code _r<index>}), else null. */
        byte[] suffix;
        private final long[] boundaries;
        private final long[] targets;

        Labels(long base, int length, int[] items) {
            this.base = base;
            this.length = length;
            this.items = items;
            this.boundaries = new long[(length >>> 6) + 1];
            this.targets = new long[(length >>> 6) + 1];
        }

        void markBoundary(int offset) {
            boundaries[offset >>> 6] |= 1L << offset;
        }

        void markTarget(long address) {
            long offset = address - base;
            if (offset >= 0 && offset < length) {
                targets[(int) (offset >>> 6)] |= 1L << offset;
            }
        }

        /** The first instruction boundary at or after {@code offset}, or the length. */
        int boundaryAtOrAfter(int offset) {
            for (int i = offset; i < length; i++) {
                if ((boundaries[i >>> 6] & (1L << i)) != 0) {
                    return i;
                }
            }
            return length;
        }

        /** The number of instruction boundaries in [from, to). */
        int boundariesIn(int from, int to) {
            int count = 0;
            for (int i = from; i < to && (i & 63) != 0; i++) {
                count += isBoundary(i) ? 1 : 0;
                from = i + 1;
            }
            int word = from >>> 6;
            for (; (word + 1) << 6 <= to; word++) {
                count += Long.bitCount(boundaries[word]);
            }
            for (int i = Math.max(from, word << 6); i < to; i++) {
                count += isBoundary(i) ? 1 : 0;
            }
            return count;
        }

        boolean isBoundary(int offset) {
            return (boundaries[offset >>> 6] & (1L << offset)) != 0;
        }

        boolean isLabel(int offset) {
            int word = offset >>> 6;
            return ((boundaries[word] & targets[word]) & (1L << offset)) != 0;
        }
    }
}
