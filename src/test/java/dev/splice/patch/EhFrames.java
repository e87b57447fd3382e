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
    static Map<String, Long> continuationFdeLengths(Path rewritten, Path dir) {
        Path renamed = dir.resolve(rewritten.getFileName() + ".frames");
        Tools.Result r = Tools.run(List.of("riscv64-linux-gnu-objcopy", "--rename-section", ".eh_frame=.old_eh_frame",
                "--rename-section", EhFrameRewriter.SECTION + "=.eh_frame", rewritten.toString(), renamed.toString()), "", 120);
        assertEquals(0, r.exitCode(), r.stderr());
        return fdeLengths(renamed);
    }

    /**
     * Each named function's FDE moved to the continuation with the function's new range, in a
     * longer record than it had (so the in-place path cannot have handled it).
     */
    static void assertGrew(Path original, Path rewritten, Path dir, List<String> functions) {
        Map<String, Long> before = fdeLengths(original);
        Map<String, Long> after = continuationFdeLengths(rewritten, dir);
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
        }
    }
}
