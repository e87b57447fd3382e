package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.bat.BatTables;
import dev.splice.cfg.LandingPads;
import dev.splice.elf.ElfFile;
import dev.splice.testing.BoltOutputs;
import dev.splice.testing.BranchSites;
import dev.splice.testing.Tools;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * For every BOLT output: a random pre-aggregated profile drawn from the output's real branch sites
 * (in functions with and without translation tables) is translated by Splice and by perf2bolt-22;
 * the translated locations, counts and mispredictions must be the same, except the one documented
 * difference (docs/bat.md): perf2bolt-22 disassembles functions without tables and turns fall-through
 * ranges in them into edges of their CFG, which Splice does not build. And every executable address
 * must land in the same function at the same offset as perf2bolt puts it.
 */
public class Perf2boltAgreementTest {
    static Stream<BoltOutputs.Output> outputs() {
        return BoltOutputs.all().stream();
    }

    /** A random profile over the binary's branch sites inside functions with translation tables. */
    static String randomProfile(ElfFile elf, Path binary, long seed, int records) {
        return randomProfile(elf, binary, seed, records, false);
    }

    /**
     * A random profile of B, T, F and f records (and T records whose branch is a return) drawn from
     * the binary's real branch sites: inside functions with translation tables, and with {@code
     * withoutTables} also inside functions without them (code BOLT left in place), there only within
     * the function's own size.
     */
    static String randomProfile(ElfFile elf, Path binary, long seed, int records, boolean withoutTables) {
        BatTables bat = BatTables.read(elf);
        RewrittenBinary rb = RewrittenBinary.of(elf, bat);
        BranchSites sites = BranchSites.of(binary);
        java.util.function.Predicate<Long> drawn = address -> {
            RewrittenBinary.BoltFunction f = rb.functionContaining(address);
            if (f == null) {
                return false;
            }
            return bat.isBatFunction(f.address()) || (withoutTables && address - f.address() < f.size());
        };
        List<BranchSites.Site> batSites = new ArrayList<>();
        java.util.function.Predicate<Long> notInPadding = address -> {
            RewrittenBinary.BoltFunction f = rb.functionContaining(address);
            return f == null || bat.isBatFunction(f.address()) || address - f.address() < f.size();
        };
        for (BranchSites.Site s : sites.sites()) {
            if (drawn.test(s.address()) && notInPadding.test(s.target())) {
                batSites.add(s);
            }
        }
        List<BranchSites.Instruction> returns = new ArrayList<>();
        for (BranchSites.Instruction i : sites.instructions()) {
            if (drawn.test(i.address()) && i.mnemonic().startsWith("ret")) {
                returns.add(i);
            }
        }
        assertTrue(batSites.size() > 5, "too few branch sites in BAT functions: " + batSites.size());
        List<Long> siteAddresses = batSites.stream().map(BranchSites.Site::address).sorted().toList();
        Random random = new Random(seed);
        StringBuilder pa = new StringBuilder();
        for (int i = 0; i < records; i++) {
            BranchSites.Site s = batSites.get(random.nextInt(batSites.size()));
            long count = 1 + random.nextInt(500);
            switch (random.nextInt(6)) {
                case 0, 1 -> pa.append(String.format("B %x %x %d %d%n", s.address(), s.target(), count, random.nextInt(3)));
                case 2 -> {
                    // A trace: the branch, then fall through to the next branch site after its target.
                    long end = nextSite(siteAddresses, s.target());
                    pa.append(String.format("T %x %x %x %d%n", s.address(), s.target(), end, count));
                }
                case 3 -> pa.append(String.format("F %x %x %d%n", s.target(), nextSite(siteAddresses, s.target()), count));
                case 4 -> pa.append(String.format("f %x %x %d%n", s.target(), nextSite(siteAddresses, s.target()), count));
                default -> {
                    if (!returns.isEmpty()) {
                        BranchSites.Instruction r = returns.get(random.nextInt(returns.size()));
                        pa.append(String.format("T %x %x %x %d%n", r.address(), s.target(), nextSite(siteAddresses, s.target()), count));
                    }
                }
            }
        }
        return pa.toString();
    }

    private static long nextSite(List<Long> sorted, long address) {
        int i = java.util.Collections.binarySearch(sorted, address);
        i = i < 0 ? -i - 1 : i;
        return i < sorted.size() ? sorted.get(i) : address;
    }

    static Set<String> perf2bolt(Path binary, String pa, String tag, String... extra) {
        try {
            return lines(Files.readString(perf2boltFile(binary, pa, tag, extra)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs perf2bolt-22 --pa on the profile text; its fdata file (under BoltOutputs.dir(), named by the tag). */
    static Path perf2boltFile(Path binary, String pa, String tag, String... extra) {
        try {
            Path dir = BoltOutputs.dir();
            Path in = dir.resolve(tag + ".pa");
            Path out = dir.resolve(tag + ".perf2bolt.fdata");
            Files.writeString(in, pa);
            List<String> command = new ArrayList<>(List.of("perf2bolt-22", "-p", in.toString(), "--pa", "-o", out.toString()));
            command.addAll(List.of(extra));
            command.add(binary.toString());
            Tools.run(command, null, 300).checked("perf2bolt-22");
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Set<String> splice(ElfFile elf, String pa, boolean basic) {
        BatTables bat = BatTables.read(elf);
        ProfileTranslator t = new ProfileTranslator(bat, RewrittenBinary.of(elf, bat), basic);
        try {
            new ProfileReader(ProfileTranslation.InputFormat.PRE_AGGREGATED, "profile", false, null)
                    .read(new ByteArrayInputStream(pa.getBytes(StandardCharsets.UTF_8)), t);
            StringWriter w = new StringWriter();
            t.translate().write(w);
            return lines(w.toString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Set<String> lines(String fdata) {
        Set<String> set = new TreeSet<>();
        for (String l : fdata.split("\n")) {
            if (!l.isBlank() && !l.equals("boltedcollection") && !l.startsWith("no_lbr")) {
                set.add(l);
            }
        }
        return set;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("outputs")
    void sameTranslationAsPerf2bolt(BoltOutputs.Output o) {
        ElfFile elf = ElfFile.read(o.output());
        String pa = randomProfile(elf, o.output(), o.id().hashCode(), 600, true);
        Set<String> expected = perf2bolt(BoltOutputs.forPerf2bolt(o), pa, o.id());
        Set<String> actual = splice(elf, pa, false);
        assertTrue(expected.size() > 10, "perf2bolt translated too little: " + expected);
        assertSame(expected, actual);
    }

    /**
     * Addresses may carry a build-id or file-name prefix ("id:addr"), which perf2bolt ignores: the
     * same profile with random prefixes translates as without them, in both tools.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("outputs")
    void buildIdAndNamePrefixesAreIgnored(BoltOutputs.Output o) {
        if (!o.id().startsWith("x86_64-loops") && !o.id().startsWith("rv64-entries")) {
            return; // two outputs suffice: the prefixes are read before any translation
        }
        ElfFile elf = ElfFile.read(o.output());
        String pa = randomProfile(elf, o.output(), 3, 200);
        Random random = new Random(17);
        String[] prefixes = {"a1b2c3d4e5f60718293a4b5c6d7e8f9012345678:", "loops.bolt:", ""};
        StringBuilder prefixed = new StringBuilder();
        for (String line : pa.split("\n")) {
            String[] f = line.split(" ");
            int addresses = f[0].equals("T") ? 3 : 2;
            for (int i = 1; i <= addresses; i++) {
                f[i] = prefixes[random.nextInt(prefixes.length)] + f[i];
            }
            prefixed.append(String.join(" ", f)).append('\n');
        }
        assertTrue(prefixed.indexOf(":") > 0);
        Set<String> plain = splice(elf, pa, false);
        assertSame(perf2bolt(BoltOutputs.forPerf2bolt(o), prefixed.toString(), o.id() + ".prefixed"), splice(elf, prefixed.toString(), false));
        assertSame(plain, splice(elf, prefixed.toString(), false));
    }

    /**
     * Code without tables: F and f ranges from every branch target, and from after every branch
     * site, to the next branch site, all over the old code BOLT left in place (RISC-V; x86-64 with
     * static glibc and libstdc++, thousands of functions with jump tables). Splice derives exactly
     * perf2bolt-22's edges from its CFG, with the same counts (blocks start also at landing pads from
     * the LSDAs, at jump-table targets and at entry points; RISC-V c.ebreak and x86-64 int3, which
     * LLVM does not mark traps, fall through).
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"rv64-loops-reverse-hfsort", "rv64-exceptions-inplace-reverse",
            "x86_64-static-exceptions-inplace-reverse"})
    void fallthroughsInCodeWithoutTablesAreThoseOfPerf2boltsCfg(String id) {
        BoltOutputs.Output o = BoltOutputs.get(id);
        ElfFile elf = ElfFile.read(o.output());
        BatTables bat = BatTables.read(elf);
        RewrittenBinary rb = RewrittenBinary.of(elf, bat);
        BranchSites sites = BranchSites.of(o.output());
        java.util.function.LongPredicate withoutTable = a -> {
            RewrittenBinary.BoltFunction f = rb.functionContaining(a);
            return f != null && !bat.isBatFunction(f.address());
        };
        // Branch sites in code without tables, each with the address of the instruction after it.
        java.util.TreeMap<Long, Long> siteAfter = new java.util.TreeMap<>();
        List<BranchSites.Instruction> all = sites.instructions();
        for (int n = 0; n + 1 < all.size(); n++) {
            BranchSites.Instruction i = all.get(n);
            String m = i.mnemonic();
            if (withoutTable.test(i.address()) && (m.startsWith("b") || m.startsWith("j")
                    || m.startsWith("c.") && (m.startsWith("c.b") || m.startsWith("c.j"))
                    || m.startsWith("ret") || m.startsWith("call") || m.startsWith("tail"))) {
                siteAfter.put(i.address(), all.get(n + 1).address());
            }
        }
        List<Long> siteAddresses = new ArrayList<>(siteAfter.keySet());
        StringBuilder pa = new StringBuilder();
        int k = 0;
        for (BranchSites.Site s : sites.sites()) {
            if (withoutTable.test(s.target())) {
                pa.append(String.format("%s %x %x %d%n", k % 2 == 0 ? "F" : "f", s.target(), nextSite(siteAddresses, s.target()), 1 + k % 97));
                k++;
            }
        }
        for (int i = 0; i + 1 < siteAddresses.size(); i++) {
            // From the site, or from the instruction after it (a new block after a call or a
            // conditional branch), to the next site.
            long from = i % 2 == 0 ? siteAddresses.get(i) : siteAfter.get(siteAddresses.get(i));
            pa.append(String.format("F %x %x %d%n", from, siteAddresses.get(i + 1), 1 + i % 89));
        }
        // Traces from elsewhere into each landing pad (perf2bolt does not move them back to the
        // call before it, as it does for other blocks after a call), and one ending right in it.
        int pads = 0;
        for (long[] addresses : LandingPads.of(elf).values()) {
            for (long pad : addresses) {
                if (withoutTable.test(pad)) {
                    pa.append(String.format("f %x %x %d%nF %x %x %d%n", pad, nextSite(siteAddresses, pad), 3 + pads % 7,
                            pad - 4, pad, 5 + pads % 11));
                    pads++;
                }
            }
        }
        assertTrue(pads > 0, "no landing pads in code without tables");
        Set<String> theirs = perf2bolt(o.output(), pa.toString(), o.id() + ".cfg");
        Set<String> ours = splice(elf, pa.toString(), false);
        Set<String> onlyOurs = new TreeSet<>(ours);
        onlyOurs.removeAll(theirs);
        Set<String> onlyTheirs = new TreeSet<>(theirs);
        onlyTheirs.removeAll(ours);
        // Lines carry the count: equal sets are the same edges with the same counts.
        assertEquals("", (onlyOurs.isEmpty() ? "" : "only Splice: " + onlyOurs + "\n")
                + (onlyTheirs.isEmpty() ? "" : "only perf2bolt-22: " + onlyTheirs + "\n"));
        assertTrue(theirs.size() > 1000, "too few edges: " + theirs.size());
    }

    /**
     * Every executable address (all of them, or a seeded sample of 12,000 in large binaries) as the
     * target of a branch from outside the binary: perf2bolt and Splice name the same function and
     * offset, or both leave it outside every function.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("outputs")
    void functionTableMatchesPerf2bolt(BoltOutputs.Output o) {
        ElfFile elf = ElfFile.read(o.output());
        List<Long> addresses = new ArrayList<>();
        for (dev.splice.elf.Section s : elf.sections()) {
            if (s.isAllocated() && s.isExecutable()) {
                for (long a = s.address(); a < s.address() + s.size(); a++) {
                    addresses.add(a);
                }
            }
        }
        if (addresses.size() > 12_000) {
            java.util.Collections.shuffle(addresses, new Random(o.id().hashCode()));
            addresses = addresses.subList(0, 12_000);
        }
        StringBuilder pa = new StringBuilder();
        for (long a : addresses) {
            pa.append(String.format("B 8 %x %d 0%n", a, a)); // count = address: each line names its address
        }
        Set<String> expected = perf2bolt(BoltOutputs.forPerf2bolt(o), pa.toString(), o.id() + ".table");
        Set<String> actual = splice(elf, pa.toString(), false);
        assertSame(expected, actual);
        assertTrue(expected.size() > addresses.size() / 4, "perf2bolt placed too few addresses: " + expected.size());
    }

    static void assertSame(Set<String> expected, Set<String> actual) {
        Set<String> missing = new TreeSet<>(expected);
        missing.removeAll(actual);
        Set<String> extra = new TreeSet<>(actual);
        extra.removeAll(expected);
        assertEquals("", (missing.isEmpty() ? "" : "only perf2bolt:\n" + String.join("\n", missing) + "\n")
                + (extra.isEmpty() ? "" : "only Splice:\n" + String.join("\n", extra)));
    }
}
