package dev.splice.patch;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.elf.Segment;
import dev.splice.elf.Symbol;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * What a rewrite changed in the layout of its input, read from the two files: the functions that
 * moved, the sections and segments that are new, and the sizes (for {@code splice patch --json}).
 *
 * @param inputSize the input file's size in bytes
 * @param outputSize the output file's size in bytes
 * @param moved the functions that moved, in the output's symbol order
 * @param sections the output's sections that the input has no section of that name for
 * @param segments the output's program headers that the input has no equal of (same type, flags, offset,
 *     address and sizes; the table may be reordered)
 */
public record RewriteSummary(long inputSize, long outputSize, List<MovedSymbol> moved, List<SectionInfo> sections,
                             List<SegmentInfo> segments) {
    /**
     * A function symbol whose value changed.
     *
     * @param name the symbol's name
     * @param from its value in the input
     * @param to its value in the output
     * @param size its size in the output
     */
    public record MovedSymbol(String name, long from, long to, long size) {}

    /**
     * A new section.
     *
     * @param name its name
     * @param address its address (0 when not allocated)
     * @param size its size in bytes
     */
    public record SectionInfo(String name, long address, long size) {}

    /**
     * A new or changed program header.
     *
     * @param type its type as readelf names it ({@code LOAD}, ...)
     * @param flags {@code R}, {@code W}, {@code X} as readelf prints them
     * @param address its virtual address
     * @param fileSize bytes it maps from the file
     * @param memorySize bytes it occupies in memory
     */
    public record SegmentInfo(String type, String flags, long address, long fileSize, long memorySize) {}

    /**
     * Compares an input and its rewritten output.
     *
     * @param input the input
     * @param output the output (symbols at the same indices as the input's, as Splice writes them)
     * @return the summary
     */
    public static RewriteSummary of(ElfFile input, ElfFile output) {
        List<MovedSymbol> moved = new ArrayList<>();
        List<Symbol> before = input.symbols();
        List<Symbol> after = output.symbols();
        for (int i = 0; i < Math.min(before.size(), after.size()); i++) {
            Symbol a = after.get(i);
            if (a.isFunction() && a.name().equals(before.get(i).name()) && a.value() != before.get(i).value()) {
                moved.add(new MovedSymbol(a.name(), before.get(i).value(), a.value(), a.size()));
            }
        }
        Set<String> names = new HashSet<>();
        input.sections().forEach(s -> names.add(s.name()));
        List<SectionInfo> sections = new ArrayList<>();
        for (Section s : output.sections()) {
            if (!names.contains(s.name())) {
                sections.add(new SectionInfo(s.name(), s.address(), s.size()));
            }
        }
        List<SegmentInfo> segments = new ArrayList<>();
        Set<List<Long>> old = new HashSet<>();
        input.segments().forEach(p -> old.add(shape(p)));
        for (Segment p : output.segments()) {
            if (!old.contains(shape(p))) {
                segments.add(new SegmentInfo(p.typeName(), p.flagsText(), p.virtualAddress(), p.fileSize(), p.memorySize()));
            }
        }
        return new RewriteSummary(input.toBytes().length, output.toBytes().length, List.copyOf(moved), List.copyOf(sections),
                List.copyOf(segments));
    }

    /** What makes two program headers the same one. */
    private static List<Long> shape(Segment p) {
        return List.of((long) p.type(), (long) p.flags(), p.offset(), p.virtualAddress(), p.fileSize(), p.memorySize());
    }
}
