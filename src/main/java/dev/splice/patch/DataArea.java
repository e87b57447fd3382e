package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.Section;
import dev.splice.elf.Segment;
import dev.splice.patch.PatchException.Reason;
import java.util.Map;

/**
 * The zero-initialised read-write area of an instrumented output ({@value #SECTION}, its own
 * PT_LOAD, R W): the runtime's scratch (its once-only exit flag, the file name it builds) at
 * {@code __splice_data}, then the counters at {@code __splice_counters} (slot k at
 * {@code __splice_counters + 8k}). Its address depends on the input only, {@value #DISTANCE} bytes
 * above where the new code goes, so that fragments can be assembled before the code is laid out.
 *
 * @param address the area's address ({@code __splice_data})
 */
record DataArea(long address) {
    /** The section's name. */
    static final String SECTION = ".splice.bss";
    /** How far above the new code's reference address the area lies: the new code must fit below it. */
    static final long DISTANCE = 1L << 30;
    /** The runtime's scratch before the counters. */
    static final int SCRATCH = 4096;

    /** {@return the address of counter slot 0} */
    long counters() {
        return address + SCRATCH;
    }

    /** {@return the address of counter slot {@code k}} */
    long counter(int k) {
        return counters() + 8L * k;
    }

    /** {@return the area's size with {@code counters} slots} */
    static long size(int counters) {
        return SCRATCH + 8L * counters;
    }

    /** {@return the area's symbols, by name} */
    Map<String, Long> symbols() {
        return Map.of("__splice_data", address, "__splice_counters", counters());
    }

    /**
     * Adds the area with {@code counters} slots to the output, in its own R W PT_LOAD; refuses new
     * code that reaches up to it ({@code codeEnd}) or a table without a spare program header.
     */
    void add(ElfEditor editor, int counters, long codeEnd, String file) {
        if (codeEnd > address) {
            throw new PatchException(Reason.OUT_OF_REACH, file + ": the new code (up to 0x" + Long.toHexString(codeEnd)
                    + ") reaches the data area at 0x" + Long.toHexString(address) + "; it must stay under 1 GiB");
        }
        int index = editor.addSection(SECTION, Section.SHT_NOBITS, Section.SHF_ALLOC | Section.SHF_WRITE, address, 8, 0, 0, 0,
                new byte[(int) size(counters)]);
        editor.bindSegment(programHeader(editor, file), index);
    }

    /** The spare PT_GNU_STACK entry (the new code took PT_RISCV_ATTRIBUTES's), as an empty R W PT_LOAD. */
    private static int programHeader(ElfEditor editor, String file) {
        for (Segment s : editor.segments()) {
            if (s.type() == Segment.PT_GNU_STACK) {
                editor.setSegment(new Segment(s.index(), Segment.PT_LOAD, Segment.PF_R | Segment.PF_W, 0, 0, 0, 0, 0,
                        ElfEditor.PAGE_SIZE));
                return s.index();
            }
        }
        throw new PatchException(Reason.NO_SPARE_PROGRAM_HEADER, file + ": no spare program header (PT_GNU_STACK) for the "
                + "counters' segment; the program header table cannot grow in place");
    }
}
