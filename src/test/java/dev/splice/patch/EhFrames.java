package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Symbol;
import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * FDEs as GNU readelf decodes them. The continuation of a grown .eh_frame ({@code .splice.eh_frame})
 * is decoded on its own, from a copy in which objcopy gave it the name readelf looks for: it
 * holds its own CIEs, so readelf needs nothing else.
 */
final class EhFrames {
    private EhFrames() {}

    private static final Pattern FDE = Pattern.compile(
            "^[0-9a-f]+ ([0-9a-f]+) [0-9a-f]+ FDE cie=[0-9a-f]+ pc=([0-9a-f]+)\\.\\.([0-9a-f]+)$", Pattern.MULTILINE);

    /** Record length of each FDE of the binary's .eh_frame, by "start..end" (hex). */
    static Map<String, Long> fdeLengths(Path binary) {
        Tools.Result r = Tools.run(List.of("readelf", "--debug-dump=frames", "-W", binary.toString()), "", 120);
        assertEquals(0, r.exitCode(), r.stderr());
        Map<String, Long> out = new HashMap<>();
        Matcher m = FDE.matcher(r.stdout());
        while (m.find()) {
            out.put(Long.parseLong(m.group(2), 16) + ".." + Long.parseLong(m.group(3), 16), Long.parseLong(m.group(1), 16));
        }
        return out;
    }

    /** The FDEs of the continuation section {@code .splice.eh_frame} of a rewritten binary. */
    /**
     * readelf's decoded CFA table of the FDE covering exactly [start, end): the column header,
     * then each row's location and rules.
     */
    static List<String[]> table(String interp, long start, long end) {
        String key = String.format(" pc=%016x..%016x", start, end);
        List<String[]> rows = new java.util.ArrayList<>();
        boolean in = false;
        for (String line : interp.split("\n")) {
            if (!in) {
                in = line.endsWith(key);
            } else if (line.isBlank()) {
                break;
            } else {
                String[] cells = line.trim().split("\\s+");
                rows.add(cells);
            }
        }
        assertTrue(!rows.isEmpty(), "no FDE for" + key);
        return rows;
    }

    /**
     * The FDEs of a (renamed) continuation in ascending pc order, as readelf lists them: libgcc's
     * sort at the first throw then finds one ascending run and heap-sorts nothing.
     */
    private static void assertAscending(Path continuation) {
        Tools.Result r = Tools.run(List.of("readelf", "--debug-dump=frames", "-W", continuation.toString()), "", 120);
        assertEquals(0, r.exitCode(), r.stderr());
        Matcher m = FDE.matcher(r.stdout());
        long last = -1;
        int fdes = 0;
        while (m.find()) {
            long begin = Long.parseLong(m.group(2), 16);
            assertTrue(begin >= last, "FDE at pc 0x" + m.group(2) + " after one at 0x" + Long.toHexString(last));
            last = begin;
            fdes++;
        }
        assertTrue(fdes > 0, "no FDE in the continuation");
    }

    /** readelf --debug-dump=frames-interp of a binary. */
    static String interp(Path binary) {
        Tools.Result r = Tools.run(List.of("readelf", "--debug-dump=frames-interp", "-W", binary.toString()), "", 120);
        assertEquals(0, r.exitCode(), r.stderr());
        return r.stdout();
    }

    /** A renamed copy of the rewritten binary in which readelf decodes the continuation as .eh_frame. */
    private static Path renamed(Path rewritten, Path dir) {
        Path renamed = dir.resolve(rewritten.getFileName() + ".frames");
        Tools.Result r = Tools.run(List.of("riscv64-linux-gnu-objcopy", "--rename-section", ".eh_frame=.old_eh_frame",
                "--rename-section", EhFrameRewriter.SECTION + "=.eh_frame", rewritten.toString(), renamed.toString()), "", 120);
        assertEquals(0, r.exitCode(), r.stderr());
        return renamed;
    }

    /**
     * Each named function's FDE moved to the continuation with the function's new range, in a
     * longer record than it had (so the in-place path cannot have handled it), and its CFA table
     * has the same rows as before (same rules in the same order), at increasing locations inside
     * the new code, the first at its start. llvm-readelf (which decodes .eh_frame for -a) and
     * readelf's frame dump read the output without a warning.
     */
    static void assertGrew(Path original, Path rewritten, Path dir, List<String> functions) {
        for (List<String> cmd : List.of(List.of("llvm-readelf-22", "-a", rewritten.toString()),
                List.of("readelf", "--debug-dump=frames", rewritten.toString()))) {
            Tools.Result r = Tools.run(cmd, "", 120);
            assertTrue(r.exitCode() == 0 && r.stderr().isBlank(), String.join(" ", cmd) + ": " + r.stderr());
        }
        Path continuation = renamed(rewritten, dir);
        assertAscending(continuation);
        Map<String, Long> before = fdeLengths(original);
        Map<String, Long> after = fdeLengths(continuation);
        String oldTables = interp(original);
        String newTables = interp(continuation);
        ElfFile in = ElfFile.read(original);
        ElfFile out = ElfFile.read(rewritten);
        for (String name : functions) {
            Symbol old = in.symbol(name).orElseThrow();
            Symbol now = out.symbol(name).orElseThrow();
            Long was = before.get(old.value() + ".." + (old.value() + old.size()));
            Long is = after.get(now.value() + ".." + (now.value() + now.size()));
            assertTrue(was != null, name + ": no FDE in the input");
            assertTrue(is != null, name + ": no FDE for its new range in " + EhFrameRewriter.SECTION);
            assertTrue(is > was, name + ": FDE length " + is + " is not longer than " + was);
            List<String[]> oldRows = table(oldTables, old.value(), old.value() + old.size());
            List<String[]> newRows = table(newTables, now.value(), now.value() + now.size());
            assertEquals(oldRows.size(), newRows.size(), name + ": CFA rows");
            long last = -1;
            for (int i = 0; i < oldRows.size(); i++) {
                String[] a = oldRows.get(i);
                String[] b = newRows.get(i);
                assertEquals(List.of(a).subList(1, a.length), List.of(b).subList(1, b.length), name + ": CFA row " + i);
                if (i == 0) {
                    continue; // the column header
                }
                long at = Long.parseLong(b[0], 16);
                assertTrue(at > last && at >= now.value() && at < now.value() + now.size(), name + ": row at 0x" + b[0]);
                assertTrue(i > 1 || at == now.value(), name + ": first row at 0x" + b[0]);
                last = at;
            }
        }
    }
}
