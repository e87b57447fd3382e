package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.Section;
import dev.splice.elf.Segment;
import dev.splice.elf.Symbol;
import java.util.Map;

/**
 * The zero-initialised read-write area an output can get (for counters and fragment data): the
 * NOBITS section {@value #NAME}, above everything the input loads and below {@code .splice.text},
 * named by the global symbol {@value #SYMBOL}. When the highest PT_LOAD is the program's R W one,
 * that segment's {@code p_memsz} grows over the area (like a longer {@code .bss}: no new program
 * header, so the table can still grow in place). So it does in a second pass, where the highest
 * PT_LOAD is the first pass's code ({@link EarlierCodeSegment}), when
 * the area fits below it: the code then grows that segment, and the output has the first pass's
 * table, which GNU strip keeps loadable (docs/elf.md). Otherwise the area gets a PT_LOAD of its own
 * (R W, {@code p_filesz} 0). Its address depends on the input and on a bound of its size only
 * ({@link #addressFor}), so fragments can refer to it before layout. It starts with the bytes {@link Rewrite#reserveData} asked for;
 * with the runtime ({@link SpliceRuntime}) the runtime's scratch follows at
 * {@code __splice_runtime_data} (64-byte aligned, {@value #SCRATCH} bytes: its once-only exit flag,
 * the file name it builds), then the counters at {@code __splice_counters} (slot k at
 * {@code __splice_counters + 8k}).
 *
 * @param address the area's first byte
 * @param size its length in bytes
 * @param reserved the bytes at its start that {@link Rewrite#reserveData} asked for
 */
record DataArea(long address, long size, long reserved) {
    /** The section's name. */
    static final String NAME = ".splice.bss";
    /** The symbol at the area's start. */
    static final String SYMBOL = "__splice_data";
    /** A cache line: counters of different points do not share one by accident of placement. */
    static final long ALIGNMENT = 64;
    /** The runtime's scratch before the counters. */
    static final int SCRATCH = 4096;
    private static final long PAGE = 4096;

    /**
     * Where {@link #add} puts the area in an output edited from {@code editor}, before anything is
     * added to it: right after the program's R W segment when that is the highest, or when it lies
     * below an earlier pass's code segment with room for {@code maxSize} bytes before the next PT_LOAD;
     * else with room for the whole file to double below it, so that its p_vaddr - p_offset stays above
     * the load base.
     *
     * @param editor a fresh editor of the input
     * @param maxSize the most bytes the area will hold
     * @return the area's address
     */
    static long addressFor(ElfEditor editor, long maxSize) {
        Segment last = highestLoad(editor);
        if (grows(editor, last)) {
            return after(last);
        }
        Segment below = belowEarlierCode(editor, maxSize);
        if (below != null) {
            return after(below);
        }
        // Room for the whole file to double before the area: its p_vaddr - p_offset stays above the load base.
        long reserve = 0;
        for (Section s : editor.sections()) {
            reserve += s.fileSize();
        }
        return editor.addressForNewSegments(reserve);
    }

    private static long after(Segment g) {
        return (g.virtualAddress() + g.memorySize() + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** The PT_LOAD that ends highest, or null. */
    private static Segment highestLoad(ElfEditor editor) {
        return highest(editor, Segment::isLoad);
    }

    /** The segment {@code which} accepts that ends highest, or null. */
    private static Segment highest(ElfEditor editor, java.util.function.Predicate<Segment> which) {
        Segment last = null;
        for (Segment g : editor.segments()) {
            if (which.test(g) && (last == null || Long.compareUnsigned(g.virtualAddress() + g.memorySize(),
                    last.virtualAddress() + last.memorySize()) > 0)) {
                last = g;
            }
        }
        return last;
    }

    /** Whether {@code last} is the program's own R W segment, the highest, which can grow over the area. */
    private static boolean grows(ElfEditor editor, Segment last) {
        return isReadWrite(last) && editor.addressForNewSegments(0) >= last.virtualAddress() + last.memorySize();
    }

    private static boolean isReadWrite(Segment g) {
        return g != null && g.isLoad() && (g.flags() & (Segment.PF_W | Segment.PF_X)) == Segment.PF_W;
    }

    /**
     * The highest R W PT_LOAD of an output patched before ({@link EarlierCodeSegment}), when
     * {@code maxSize} bytes after it end on a page below every PT_LOAD that starts above it; else null.
     */
    private static Segment belowEarlierCode(ElfEditor editor, long maxSize) {
        if (EarlierCodeSegment.of(editor) == null) {
            return null;
        }
        Segment rw = highest(editor, DataArea::isReadWrite);
        if (rw == null || maxSize > 1L << 40) {
            return null;
        }
        long areaPagesEnd = (after(rw) + maxSize + PAGE - 1) & -PAGE;
        for (Segment g : editor.segments()) {
            if (g.isLoad() && g != rw && Long.compareUnsigned(g.virtualAddress(), rw.virtualAddress()) > 0
                    && Long.compareUnsigned(g.virtualAddress() & -PAGE, areaPagesEnd) < 0) {
                return null;
            }
        }
        return rw;
    }

    /**
     * Adds the area (section, segment, symbol) at {@code address} (from {@link #addressFor}) to the output
     * being edited; call it before the code's address is chosen ({@link ElfEditor#addressForNewSegments}
     * then lies above it). The R W segment it follows grows over it; else it gets a PT_LOAD.
     *
     * @param editor the output
     * @param address the area's address
     * @param size the area's length, &gt; 0, at most the bound its address was chosen for
     * @return the area
     */
    static DataArea add(ElfEditor editor, long address, long size) {
        if (size <= 0 || size > 1L << 40) {
            throw new IllegalArgumentException("data area of " + size + " bytes");
        }
        Segment grown = null;
        for (Segment g : editor.segments()) {
            if (isReadWrite(g) && after(g) == address) {
                grown = g;
            }
        }
        int index = editor.addSection(NAME, Section.SHT_NOBITS, Section.SHF_ALLOC | Section.SHF_WRITE, address, ALIGNMENT,
                0, 0, 0, new byte[0]);
        editor.setSection(withSize(editor.section(index), size));
        if (grown != null) {
            editor.setSegment(new Segment(grown.index(), grown.type(), grown.flags(), grown.offset(), grown.virtualAddress(),
                    grown.physicalAddress(), grown.fileSize(), address + size - grown.virtualAddress(), grown.alignment()));
        } else {
            editor.addLoadSegment(Segment.PF_R | Segment.PF_W, index);
        }
        editor.section(".symtab").ifPresent(symtab -> editor.addSymbol(symtab.index(), new Symbol(0, SYMBOL, address, size,
                Symbol.STT_OBJECT, Symbol.STB_GLOBAL, Symbol.STV_DEFAULT, index)));
        return new DataArea(address, size, 0);
    }

    private static Section withSize(Section s, long size) {
        return new Section(s.index(), s.name(), s.type(), s.flags(), s.address(), s.offset(), size, s.link(), s.info(),
                s.alignment(), s.entrySize());
    }

    /** {@return the address of the runtime's scratch} */
    long runtimeData() {
        return address + (reserved + ALIGNMENT - 1) / ALIGNMENT * ALIGNMENT;
    }

    /** {@return the address of counter slot 0} */
    long counters() {
        return runtimeData() + SCRATCH;
    }

    /** {@return the address of counter slot {@code k}} */
    long counter(int k) {
        return counters() + 8L * k;
    }

    /** {@return the area's size with the runtime and {@code counters} slots (without: the reserved bytes)} */
    long sizeWith(boolean runtime, int counters) {
        return runtime ? counters() + 8L * counters - address : reserved;
    }

    /** {@return the names of the area's parts the runtime and fragments use} */
    Map<String, Long> symbols() {
        return Map.of(SYMBOL, address, "__splice_runtime_data", runtimeData(), "__splice_counters", counters());
    }
}
