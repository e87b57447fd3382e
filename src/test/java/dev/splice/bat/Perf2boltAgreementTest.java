package dev.splice.bat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
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

/**
 * For every BOLT output: a random pre-aggregated profile drawn from the output's real branch sites
 * (in functions that have translation tables) is translated by Splice and by perf2bolt-22; the
 * translated locations, counts and mispredictions must be the same.
 */
class Perf2boltAgreementTest {
    static Stream<BoltOutputs.Output> outputs() {
        return BoltOutputs.all().stream();
    }

    /** A random profile over the binary's branch sites inside BAT functions. */
    static String randomProfile(ElfFile elf, Path binary, long seed, int records) {
        BatTables bat = BatTables.read(elf);
        RewrittenBinary rb = RewrittenBinary.of(elf, bat);
        BranchSites sites = BranchSites.of(binary);
        // Functions that BOLT left without a FUNC symbol get a name from perf2bolt that Splice does not
        // imitate (docs/bat.md); the agreement is checked on the others.
        java.util.Set<Long> funcSymbols = new java.util.HashSet<>();
        elf.symbols().stream().filter(dev.splice.elf.Symbol::isFunction).forEach(x -> funcSymbols.add(x.value()));
        List<BranchSites.Site> batSites = new ArrayList<>();
        for (BranchSites.Site s : sites.sites()) {
            RewrittenBinary.Function f = rb.functionContaining(s.address());
            if (f != null && bat.isBatFunction(f.address()) && funcSymbols.contains(f.address())) {
                batSites.add(s);
            }
        }
        List<BranchSites.Instruction> returns = new ArrayList<>();
        for (BranchSites.Instruction i : sites.instructions()) {
            RewrittenBinary.Function f = rb.functionContaining(i.address());
            if (f != null && bat.isBatFunction(f.address()) && funcSymbols.contains(f.address()) && i.mnemonic().startsWith("ret")) {
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
            Path dir = BoltOutputs.dir();
            Path in = dir.resolve(tag + ".pa");
            Path out = dir.resolve(tag + ".perf2bolt.fdata");
            Files.writeString(in, pa);
            List<String> command = new ArrayList<>(List.of("perf2bolt-22", "-p", in.toString(), "--pa", "-o", out.toString()));
            command.addAll(List.of(extra));
            command.add(binary.toString());
            Tools.run(command, null, 300).checked("perf2bolt-22");
            return lines(Files.readString(out));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Set<String> splice(ElfFile elf, String pa, boolean basic) {
        BatTables bat = BatTables.read(elf);
        ProfileTranslator t = new ProfileTranslator(bat, RewrittenBinary.of(elf, bat), basic);
        try {
            new ProfileReader(ProfileReader.Format.PRE_AGGREGATED, "profile", false, null)
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
        String pa = randomProfile(elf, o.output(), o.id().hashCode(), 400);
        Set<String> expected = perf2bolt(BoltOutputs.forPerf2bolt(o), pa, o.id());
        Set<String> actual = splice(elf, pa, false);
        assertTrue(expected.size() > 10, "perf2bolt translated too little: " + expected);
        assertSame(expected, actual);
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
