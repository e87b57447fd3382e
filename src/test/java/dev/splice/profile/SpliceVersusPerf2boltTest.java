package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.bat.BatColdFragment;
import dev.splice.bat.BatFunction;
import dev.splice.bat.BatTables;
import dev.splice.elf.ElfFile;
import dev.splice.testing.BoltOutputs;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The cases where perf2bolt-22 is wrong and Splice differs on purpose (docs/bat.md), each shown
 * against the real tools, and the proof that llvm-bolt-22 applies at least as much of Splice's
 * profile to the input binary as of perf2bolt's.
 */
class SpliceVersusPerf2boltTest {
    private static final Pattern PROFILED = Pattern.compile("BOLT-INFO: (\\d+) out of (\\d+) functions in the binary .* have non-empty execution profile");
    private static final Pattern STALE = Pattern.compile("BOLT-WARNING: (\\d+) \\(.*\\) functions have invalid \\(possibly stale\\) profile");

    /** What llvm-bolt-22 made of a profile for the input binary: profiled functions, stale ones, or -1 if it failed. */
    record Applied(int profiled, int stale, String log) {}

    static Applied applyToInput(Path input, Path profile) {
        Path out = BoltOutputs.dir().resolve(profile.getFileName() + ".rebolt");
        Tools.Result r = Tools.run(List.of("llvm-bolt-22", input.toString(), "-o", out.toString(), "--data", profile.toString()), null, 300);
        String log = r.stdout() + r.stderr();
        if (r.exitCode() != 0) {
            return new Applied(-1, 0, log);
        }
        Matcher m = PROFILED.matcher(log);
        int profiled = m.find() ? Integer.parseInt(m.group(1)) : 0;
        Matcher s = STALE.matcher(log);
        int stale = s.find() ? Integer.parseInt(s.group(1)) : 0;
        return new Applied(profiled, stale, log);
    }

    static Path spliceFdata(BoltOutputs.Output o, String pa, boolean basic, String tag) {
        ElfFile elf = ElfFile.read(o.output());
        BatTables bat = BatTables.read(elf);
        ProfileTranslator t = new ProfileTranslator(bat, RewrittenBinary.of(elf, bat), basic);
        try {
            new ProfileReader(ProfileTranslation.InputFormat.PRE_AGGREGATED, tag, false, null)
                    .read(new java.io.ByteArrayInputStream(pa.getBytes(java.nio.charset.StandardCharsets.UTF_8)), t);
            StringWriter w = new StringWriter();
            t.translate().write(w);
            Path file = BoltOutputs.dir().resolve(tag + ".splice.fdata");
            Files.writeString(file, w.toString());
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path perf2boltFdata(BoltOutputs.Output o, String pa, String tag, String... extra) {
        Perf2boltAgreementTest.perf2bolt(BoltOutputs.forPerf2bolt(o), pa, tag, extra);
        return BoltOutputs.dir().resolve(tag + ".perf2bolt.fdata");
    }

    /** Samples (S records, basic mode) at the start of every block of the output's hot functions. */
    static String blockSamples(BatTables bat, boolean includeCold) {
        StringBuilder pa = new StringBuilder();
        int n = 0;
        for (BatFunction f : bat.functions()) {
            for (int i = 0; i < f.map().size(); i++) {
                if (!f.map().isBranch(i)) {
                    pa.append(String.format("S %x %d%n", f.address() + f.map().outputOffset(i), 10 + (n++ % 90)));
                }
            }
        }
        if (includeCold) {
            for (BatColdFragment c : bat.coldFragments()) {
                for (int i = 0; i < c.map().size(); i++) {
                    pa.append(String.format("S %x %d%n", c.address() + c.map().outputOffset(i), 10 + (n++ % 90)));
                }
            }
        }
        return pa.toString();
    }

    /** perf2bolt writes "boltedcollection" before "no_lbr", which llvm-bolt cannot read; Splice's order works. */
    @Test
    void noLbrHeaderOrderIsReadableByLlvmBolt() throws IOException {
        BoltOutputs.Output o = BoltOutputs.get("rv64-loops-reverse-hfsort");
        BatTables bat = BatTables.read(ElfFile.read(o.output()));
        String pa = blockSamples(bat, false);
        Path theirs = perf2boltFdata(o, pa, "nolbr", "--ba");
        Path ours = spliceFdata(o, pa, true, "nolbr");
        List<String> theirLines = Files.readAllLines(theirs);
        List<String> ourLines = Files.readAllLines(ours);
        assertEquals(List.of("boltedcollection", "no_lbr"), theirLines.subList(0, 2));
        assertEquals(List.of("no_lbr", "boltedcollection"), ourLines.subList(0, 2));
        // Outside cold fragments the sample lines are the same.
        assertEquals(new java.util.TreeSet<>(theirLines.subList(2, theirLines.size())),
                new java.util.TreeSet<>(ourLines.subList(2, ourLines.size())));
        Applied perf2bolt = applyToInput(o.input(), theirs);
        Applied splice = applyToInput(o.input(), ours);
        assertEquals(-1, perf2bolt.profiled(), "llvm-bolt-22 was expected to refuse perf2bolt's no_lbr fdata:\n" + perf2bolt.log());
        assertTrue(splice.profiled() > 100, splice.log());
    }

    /**
     * perf2bolt translates a sample in a cold fragment with its parent's map, from the parent's
     * address: the offset lands past the end of the input function. Splice uses the fragment's map.
     */
    @Test
    void samplesInColdFragmentsStayInsideTheInputFunction() {
        BoltOutputs.Output o = BoltOutputs.get("x86_64-loops-splitall-exttsp-cdsort-icf");
        ElfFile output = ElfFile.read(o.output());
        ElfFile input = ElfFile.read(o.input());
        BatTables bat = BatTables.read(output);
        String pa = blockSamples(bat, true);
        Path theirFile = perf2boltFdata(o, pa, "coldsamples", "--ba");
        Path ourFile = spliceFdata(o, pa, true, "coldsamples");
        Set<String> theirs = Perf2boltAgreementTest.lines(read(theirFile));
        Set<String> ours = Perf2boltAgreementTest.lines(read(ourFile));
        int pastEnd = 0;
        for (String line : theirs) {
            String[] f = line.split(" ");
            long size = input.symbol(f[1]).map(dev.splice.elf.Symbol::size).filter(x -> x > 0).orElse(Long.MAX_VALUE);
            if (Long.parseLong(f[2], 16) >= size) {
                pastEnd++;
            }
        }
        assertTrue(pastEnd > 0, "perf2bolt-22 no longer puts cold samples past the function end: " + theirs);
        for (String line : ours) {
            String[] f = line.split(" ");
            long size = input.symbol(f[1]).map(dev.splice.elf.Symbol::size).filter(x -> x > 0).orElse(Long.MAX_VALUE);
            assertTrue(Long.parseLong(f[2], 16) < size, "Splice sample past the end of " + f[1] + ": " + line);
        }
        Applied perf2bolt = applyToInput(o.input(), rewriteHeader(theirFile));
        Applied splice = applyToInput(o.input(), ourFile);
        assertTrue(splice.profiled() >= perf2bolt.profiled(), splice.profiled() + " < " + perf2bolt.profiled());
    }

    /**
     * With branch profiles both agree, except the fall-through edges perf2bolt finds in the CFGs of
     * functions without tables (docs/bat.md); the profile here also covers such code. llvm-bolt
     * applies at least as much of Splice's profile to the input binary, with no more stale functions.
     */
    @Test
    void llvmBoltAppliesAtLeastAsMuchOfSplicesProfile() {
        for (String id : List.of("rv64-loops-split-exttsp-cdsort-icf", "x86_64-exceptions-splitall-reverse-hfsort",
                "x86_64-loops-splitall-exttsp-cdsort-icf")) {
            BoltOutputs.Output o = BoltOutputs.get(id);
            ElfFile elf = ElfFile.read(o.output());
            String pa = Perf2boltAgreementTest.randomProfile(elf, o.output(), 7, 600, true);
            Applied perf2bolt = applyToInput(o.input(), perf2boltFdata(o, pa, id + "-apply"));
            Applied splice = applyToInput(o.input(), spliceFdata(o, pa, false, id + "-apply"));
            assertTrue(perf2bolt.profiled() > 0, perf2bolt.log());
            assertTrue(splice.profiled() >= perf2bolt.profiled(), id + ": " + splice.profiled() + " < " + perf2bolt.profiled());
            assertTrue(splice.stale() <= perf2bolt.stale(), id + ": stale " + splice.stale() + " > " + perf2bolt.stale());
        }
    }

    /**
     * perf2bolt names code BOLT left in place by internal names (__BOLT_FDE_FUNCat..., .bolt.org.text/1)
     * that llvm-bolt does not find in the input. Given the input binary, Splice names it after the
     * input's function at the same address: the same lines as perf2bolt's with those names replaced
     * (up to the CFG fall-throughs), and llvm-bolt applies more of the profile to the input.
     */
    @Test
    void codeLeftInPlaceIsNamedAfterTheInputsFunctions() throws IOException {
        BoltOutputs.Output o = BoltOutputs.get("rv64-loops-reverse-hfsort");
        ElfFile elf = ElfFile.read(o.output());
        ElfFile input = ElfFile.read(o.input());
        BatTables bat = BatTables.read(elf);
        String pa = Perf2boltAgreementTest.randomProfile(elf, o.output(), 21, 600, true);
        List<RewrittenBinary.BoltFunction> plain = RewrittenBinary.of(elf, bat).functions();
        List<RewrittenBinary.BoltFunction> named = RewrittenBinary.of(elf, bat, input).functions();
        java.util.Map<String, String> renamed = new java.util.HashMap<>();
        for (int i = 0; i < plain.size(); i++) {
            assertEquals(plain.get(i).address(), named.get(i).address());
            if (!plain.get(i).name().equals(named.get(i).name())) {
                renamed.put(plain.get(i).name(), named.get(i).name());
            }
        }
        assertTrue(renamed.size() > 100, "few functions renamed: " + renamed.size());
        Path theirFile = perf2boltFdata(o, pa, "named");
        // perf2bolt's lines with the internal names replaced, counts of lines that become equal summed.
        java.util.Map<String, long[]> expected = new java.util.TreeMap<>();
        int renamedLines = 0;
        for (String line : Perf2boltAgreementTest.lines(read(theirFile))) {
            String[] f = line.split(" ");
            for (int i = 0; i < f.length - 2; i++) {
                if (renamed.containsKey(f[i])) {
                    f[i] = renamed.get(f[i]);
                    renamedLines++;
                }
            }
            String key = String.join(" ", java.util.Arrays.copyOf(f, f.length - 2));
            long[] v = expected.computeIfAbsent(key, k -> new long[2]);
            v[0] += Long.parseLong(f[f.length - 2]);
            v[1] += Long.parseLong(f[f.length - 1]);
        }
        assertTrue(renamedLines > 10, "too few lines in code left in place: " + renamedLines);
        Set<String> expectedLines = new java.util.TreeSet<>();
        expected.forEach((k, v) -> expectedLines.add(k + " " + v[0] + " " + v[1]));
        Path ourFile = BoltOutputs.dir().resolve("named.splice.fdata");
        Path paFile = BoltOutputs.dir().resolve("named.splice.pa");
        Files.writeString(paFile, pa);
        ProfileTranslation.translate(o.output(), paFile, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                new ProfileTranslation.Options(false, false, o.input(), null)).write(ourFile, ProfileTranslation.OutputFormat.FDATA);
        Perf2boltAgreementTest.assertSame(expectedLines, Perf2boltAgreementTest.lines(read(ourFile)));
        Applied perf2bolt = applyToInput(o.input(), theirFile);
        Applied splice = applyToInput(o.input(), ourFile);
        assertTrue(splice.profiled() > perf2bolt.profiled(), splice.profiled() + " <= " + perf2bolt.profiled());
    }

    /** perf2bolt's no_lbr file with the header lines swapped, so that llvm-bolt can read it at all. */
    private static Path rewriteHeader(Path fdata) {
        try {
            List<String> lines = new ArrayList<>(Files.readAllLines(fdata));
            if (lines.size() >= 2 && lines.get(0).equals("boltedcollection")) {
                lines.set(0, lines.get(1));
                lines.set(1, "boltedcollection");
            }
            Path out = fdata.resolveSibling(fdata.getFileName() + ".swapped");
            Files.write(out, lines);
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void splitRiscVOutputsStopPerf2boltUnlessColdNamesAreHidden() {
        BoltOutputs.Output o = BoltOutputs.get("rv64-loops-split-exttsp-cdsort-icf");
        Path pa = BoltOutputs.dir().resolve("rv-split-direct.pa");
        BoltOutputs.write(pa, "B 0 0 1 0\n");
        Tools.Result r = Tools.run(List.of("perf2bolt-22", "-p", pa.toString(), "--pa", "-o",
                BoltOutputs.dir().resolve("rv-split-direct.fdata").toString(), o.output().toString()), null, 300);
        assertFalse(r.exitCode() == 0 && !(r.stdout() + r.stderr()).contains("parent function not found"),
                "perf2bolt-22 now reads split RISC-V outputs: the workaround in BoltOutputs.forPerf2bolt can go");
    }
}
