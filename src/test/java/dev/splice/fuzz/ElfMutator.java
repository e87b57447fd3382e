package dev.splice.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.WeakHashMap;

/**
 * ELF-aware mutations: each seed's fields are found once (from its raw bytes, not through the
 * reader under test): the header's offsets, counts and sizes; every section header's name index,
 * type, offset, size, link, info, alignment and entry size; every program header's offsets, sizes
 * and alignment; note lengths; symbol, relocation and dynamic entries (sampled). A mutation sets
 * one to three fields to hostile values, writes a LEB128 run into a note descriptor or unwind
 * table, or edits bytes.
 */
final class ElfMutator implements Mutator {
    /** A field of the seed: where and how wide. */
    private record Field(int offset, int width) {}

    /** What is known of one seed. */
    private record Layout(List<Field> fields, List<int[]> lebRanges) {}

    /**
     * Layouts by array identity (arrays inherit identity equality), held weakly: the fuzzer mutates
     * accepted inputs again, and a strong map kept the layout of every one of them (1.3 GB of fields
     * after an hour, the JVM spending 90% of its time in full collections; session 12).
     */
    private final Map<byte[], Layout> layouts = new WeakHashMap<>();

    @Override
    public byte[] mutate(byte[] seed, Random r) {
        Layout layout = layouts.computeIfAbsent(seed, ElfMutator::layout);
        int choice = r.nextInt(20);
        if (choice < 9 && !layout.fields().isEmpty()) {
            byte[] b = seed.clone();
            int edits = 1 + r.nextInt(3);
            for (int e = 0; e < edits; e++) {
                Field f = layout.fields().get(r.nextInt(layout.fields().size()));
                long old = Mutator.get(b, f.offset(), f.width());
                Mutator.put(b, f.offset(), f.width(), Mutator.fieldValue(old, b.length, r));
            }
            return r.nextInt(4) == 0 ? Mutator.bytes(b, r) : b;
        }
        if (choice < 13 && !layout.lebRanges().isEmpty()) {
            int[] range = layout.lebRanges().get(r.nextInt(layout.lebRanges().size()));
            return Mutator.withLebRun(seed, range[0], range[1], r);
        }
        if (choice < 15 && !layout.lebRanges().isEmpty()) {
            int[] range = layout.lebRanges().get(r.nextInt(layout.lebRanges().size()));
            byte[] b = seed.clone();
            int at = range[0] + r.nextInt(Math.max(1, range[1] - range[0]));
            for (int k = 0; k < 1 + r.nextInt(4) && at + k < b.length; k++) {
                b[at + k] = (byte) r.nextInt(256);
            }
            return b;
        }
        return Mutator.bytes(seed, r);
    }

    private static Layout layout(byte[] b) {
        List<Field> fields = new ArrayList<>();
        List<int[]> leb = new ArrayList<>();
        if (b.length < 64) {
            return new Layout(fields, leb);
        }
        for (int[] f : new int[][] {{16, 2}, {18, 2}, {24, 8}, {32, 8}, {40, 8}, {48, 4}, {52, 2}, {54, 2}, {56, 2},
            {58, 2}, {60, 2}, {62, 2}}) {
            fields.add(new Field(f[0], f[1]));
        }
        long phoff = Mutator.get(b, 32, 8);
        int phnum = (int) Mutator.get(b, 56, 2);
        for (int i = 0; i < phnum && phoff + 56L * (i + 1) <= b.length; i++) {
            int at = (int) (phoff + 56L * i);
            for (int[] f : new int[][] {{0, 4}, {4, 4}, {8, 8}, {16, 8}, {32, 8}, {40, 8}, {48, 8}}) {
                fields.add(new Field(at + f[0], f[1]));
            }
        }
        long shoff = Mutator.get(b, 40, 8);
        int shnum = (int) Mutator.get(b, 60, 2);
        int shstrndx = (int) Mutator.get(b, 62, 2);
        long names = shstrndx < shnum && shoff + 64L * (shstrndx + 1) <= b.length
                ? Mutator.get(b, shoff + 64L * shstrndx + 24, 8) : -1;
        for (int i = 0; i < shnum && shoff + 64L * (i + 1) <= b.length; i++) {
            int at = (int) (shoff + 64L * i);
            for (int[] f : new int[][] {{0, 4}, {4, 4}, {8, 8}, {16, 8}, {24, 8}, {32, 8}, {40, 4}, {44, 4}, {48, 8}, {56, 8}}) {
                fields.add(new Field(at + f[0], f[1]));
            }
            int type = (int) Mutator.get(b, at + 4, 4);
            long offset = Mutator.get(b, at + 24, 8);
            long size = Mutator.get(b, at + 32, 8);
            if (type == 8 || offset < 0 || size < 0 || offset + size > b.length) {
                continue; // SHT_NOBITS, or outside the file
            }
            String name = names >= 0 ? name(b, names + Mutator.get(b, at, 4)) : "";
            switch (type) {
                case 7 -> notes(b, (int) offset, (int) (offset + size), fields, leb);
                case 2, 11 -> entries(b, offset, size, 24, new int[][] {{0, 4}, {4, 1}, {6, 2}, {8, 8}, {16, 8}}, fields);
                case 4 -> entries(b, offset, size, 24, new int[][] {{0, 8}, {8, 8}, {16, 8}}, fields);
                case 6 -> entries(b, offset, size, 16, new int[][] {{0, 8}, {8, 8}}, fields);
                default -> {
                    if (name.startsWith(".eh_frame") || name.startsWith(".gcc_except_table") || name.startsWith(".debug")) {
                        leb.add(new int[] {(int) offset, (int) (offset + size)});
                    }
                }
            }
        }
        return new Layout(fields, leb);
    }

    /** Up to 400 entries of a table, spread over it. */
    private static void entries(byte[] b, long offset, long size, int entry, int[][] layout, List<Field> fields) {
        long n = size / entry;
        long step = Math.max(1, n / 400);
        for (long i = 0; i < n; i += step) {
            for (int[] f : layout) {
                fields.add(new Field((int) (offset + i * entry + f[0]), f[1]));
            }
        }
    }

    private static void notes(byte[] b, int from, int to, List<Field> fields, List<int[]> leb) {
        int at = from;
        while (at + 12 <= to) {
            long nameSize = Mutator.get(b, at, 4);
            long descSize = Mutator.get(b, at + 4, 4);
            fields.add(new Field(at, 4));
            fields.add(new Field(at + 4, 4));
            fields.add(new Field(at + 8, 4));
            long desc = at + 12 + ((nameSize + 3) & ~3L);
            long end = desc + ((descSize + 3) & ~3L);
            if (end > to) {
                return;
            }
            if (descSize > 0) {
                leb.add(new int[] {(int) desc, (int) (desc + descSize)});
            }
            at = (int) end;
        }
    }

    private static String name(byte[] b, long at) {
        if (at < 0 || at >= b.length) {
            return "";
        }
        int end = (int) at;
        while (end < b.length && b[end] != 0) {
            end++;
        }
        return new String(b, (int) at, end - (int) at, StandardCharsets.ISO_8859_1);
    }
}
