package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.Section;
import dev.splice.elf.Segment;
import dev.splice.elf.Symbol;

/**
 * The zero-initialised read-write area an output can get (for counters and fragment data): the
 * NOBITS section {@value #NAME}, above everything the input loads and below {@code .splice.text},
 * named by the global symbol {@value #SYMBOL}. When the highest PT_LOAD is the program's R W one,
 * that segment's {@code p_memsz} grows over the area (like a longer {@code .bss}: no new program
 * header, so the table can still grow in place); otherwise it gets a PT_LOAD of its own (R W,
 * {@code p_filesz} 0). Its address is fixed before layout, so fragments can refer to it.
 *
 * @param address the area's first byte
 * @param size its length in bytes
 */
record DataArea(long address, long size) {
    /** The section's name. */
    static final String NAME = ".splice.bss";
    /** The symbol at the area's start. */
    static final String SYMBOL = "__splice_data";
    /** A cache line: counters of different points do not share one by accident of placement. */
    static final long ALIGNMENT = 64;

    /**
     * Adds the area (section, segment, symbol) to the output being edited; call it before the code's
     * address is chosen ({@link ElfEditor#addressForNewSegments} then lies above it).
     *
     * @param editor the output
     * @param size the area's length, &gt; 0
     * @return the area
     */
    static DataArea add(ElfEditor editor, long size) {
        if (size <= 0 || size > 1L << 40) {
            throw new IllegalArgumentException("data area of " + size + " bytes");
        }
        Segment last = null;
        for (Segment g : editor.segments()) {
            if (g.isLoad() && (last == null || Long.compareUnsigned(g.virtualAddress() + g.memorySize(),
                    last.virtualAddress() + last.memorySize()) > 0)) {
                last = g;
            }
        }
        boolean grow = last != null && (last.flags() & (Segment.PF_W | Segment.PF_X)) == Segment.PF_W
                && editor.addressForNewSegments(0) >= last.virtualAddress() + last.memorySize();
        long address;
        if (grow) {
            // The program's own R W segment, the highest one, grows over the area: no new program header.
            address = (last.virtualAddress() + last.memorySize() + ALIGNMENT - 1) & -ALIGNMENT;
        } else {
            // Room for the whole file to double before the area: its p_vaddr - p_offset stays above the load base.
            long reserve = 0;
            for (Section s : editor.sections()) {
                reserve += s.fileSize();
            }
            address = editor.addressForNewSegments(reserve);
        }
        int index = editor.addSection(NAME, Section.SHT_NOBITS, Section.SHF_ALLOC | Section.SHF_WRITE, address, ALIGNMENT,
                0, 0, 0, new byte[0]);
        editor.setSection(withSize(editor.section(index), size));
        if (grow) {
            editor.setSegment(new Segment(last.index(), last.type(), last.flags(), last.offset(), last.virtualAddress(),
                    last.physicalAddress(), last.fileSize(), address + size - last.virtualAddress(), last.alignment()));
        } else {
            editor.addLoadSegment(Segment.PF_R | Segment.PF_W, index);
        }
        editor.section(".symtab").ifPresent(symtab -> editor.addSymbol(symtab.index(), new Symbol(0, SYMBOL, address, size,
                Symbol.STT_OBJECT, Symbol.STB_GLOBAL, Symbol.STV_DEFAULT, index)));
        return new DataArea(address, size);
    }

    private static Section withSize(Section s, long size) {
        return new Section(s.index(), s.name(), s.type(), s.flags(), s.address(), s.offset(), size, s.link(), s.info(),
                s.alignment(), s.entrySize());
    }
}
