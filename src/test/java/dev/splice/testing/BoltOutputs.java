package dev.splice.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.bat.BatTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * BOLT outputs built during the tests with llvm-bolt-22 --enable-bat from the project's test programs,
 * once per test JVM (kept under target/bat-fixtures). Options that need a profile get one made by
 * perf2bolt-22 from random branches drawn from the input's real branch sites.
 */
public final class BoltOutputs {
    private BoltOutputs() {}

    /** One BOLT output: what it was built from and how. */
    public record Output(String id, boolean riscv, Path input, Path output, List<String> options) {
        @Override
        public String toString() {
            return id;
        }
    }

    private record Config(String id, boolean riscv, String program, boolean profile, List<String> options) {
        Path input() {
            if (riscv) {
                return TestPrograms.rv64(program);
            }
            if (program.endsWith(".static")) {
                return TestPrograms.x86_64Static(program.substring(0, program.length() - ".static".length()));
            }
            return program.endsWith(".pie") ? TestPrograms.x86_64Pie(program.substring(0, program.length() - ".pie".length()))
                    : TestPrograms.x86_64(program);
        }
    }

    private static final List<Config> CONFIGS = List.of(
            new Config("rv64-loops-reverse-hfsort", true, "loops.relocs", false,
                    List.of("--reorder-blocks=reverse", "--reorder-functions=hfsort")),
            new Config("rv64-loops-split-exttsp-cdsort-icf", true, "loops.relocs", true,
                    List.of("--split-functions", "--reorder-blocks=ext-tsp", "--reorder-functions=cdsort", "--icf")),
            new Config("rv64-exceptions-split-hfsort", true, "exceptions.relocs", true,
                    List.of("--split-functions", "--reorder-blocks=ext-tsp", "--reorder-functions=hfsort")),
            new Config("rv64-entries-reverse-icf", true, "bat_entries.relocs", false,
                    List.of("--reorder-blocks=reverse", "--icf")),
            new Config("x86_64-loops-splitall-exttsp-cdsort-icf", false, "loops", true,
                    List.of("--split-functions", "--split-strategy=all", "--reorder-blocks=ext-tsp",
                            "--reorder-functions=cdsort", "--icf")),
            new Config("x86_64-exceptions-splitall-reverse-hfsort", false, "exceptions", true,
                    List.of("--split-functions", "--split-strategy=all", "--reorder-blocks=reverse",
                            "--reorder-functions=hfsort")),
            new Config("x86_64-entries-splitall-reverse-icf", false, "entries", true,
                    List.of("--split-functions", "--split-strategy=all", "--reorder-blocks=reverse", "--icf")),
            // Static glibc and libstdc++ without relocations: BOLT rewrites the profiled functions in
            // place and leaves over 1,500 functions without tables (jump tables, landing pads).
            new Config("x86_64-static-exceptions-inplace-reverse", false, "exceptions.static", true,
                    List.of("--reorder-blocks=reverse")),
            // RISC-V static glibc and libstdc++ without relocations, rewritten in place as on x86-64.
            new Config("rv64-exceptions-inplace-reverse", true, "exceptions", true, List.of("--reorder-blocks=reverse")),
            // Position independent: 8-byte .plt.got entries, addresses from 0.
            new Config("x86_64-pie-loops-reverse", false, "loops.pie", false, List.of("--reorder-blocks=reverse")));

    private static List<Output> built;

    public static synchronized List<Output> all() {
        if (built == null) {
            List<Output> list = new ArrayList<>();
            for (Config c : CONFIGS) {
                list.add(build(c));
            }
            built = List.copyOf(list);
        }
        return built;
    }

    public static Output get(String id) {
        return all().stream().filter(o -> o.id().equals(id)).findFirst().orElseThrow();
    }

    public static Path dir() {
        Path d = TestPrograms.root().resolve("target/bat-fixtures");
        try {
            Files.createDirectories(d);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return d;
    }

    private static Output build(Config c) {
        Path input = c.input();
        Path output = dir().resolve(c.id() + ".bolt");
        List<String> command = new ArrayList<>(List.of("llvm-bolt-22", input.toString(), "-o", output.toString(), "--enable-bat"));
        command.addAll(c.options());
        if (c.profile()) {
            Path pa = dir().resolve(c.id() + ".input.pa");
            Path fdata = dir().resolve(c.id() + ".input.fdata");
            List<BranchSites.Site> sites = BranchSites.of(input).sites();
            Random random = new Random(c.id().hashCode());
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < Math.min(600, sites.size() * 2); i++) {
                BranchSites.Site s = sites.get(random.nextInt(sites.size()));
                text.append(String.format("B %x %x %d %d%n", s.address(), s.target(), 1 + random.nextInt(2000), random.nextInt(4)));
            }
            write(pa, text.toString());
            Tools.run("perf2bolt-22", "-p", pa.toString(), "--pa", "-o", fdata.toString(), input.toString()).checked("perf2bolt-22 (input profile)");
            command.add("--data");
            command.add(fdata.toString());
        }
        Tools.Result r = Tools.run(command, null, 300).checked(String.join(" ", command));
        assertTrue(r.stdout().contains("BAT"), "llvm-bolt wrote no BAT tables: " + r.stdout());
        return new Output(c.id(), c.riscv(), input, output, c.options());
    }

    /**
     * The binary to give perf2bolt-22. On RISC-V, BOLT 22 names a split function's cold fragments
     * after the mapping symbol ("$xrv64i2p1....cold.0") and perf2bolt-22 then stops with "parent
     * function not found". The copy renames ".cold." to "_cold_" in .strtab (same length): perf2bolt
     * finds the parents through the BAT tables, by address, as it does anyway (docs/bat.md).
     */
    public static Path forPerf2bolt(Output o) {
        if (!o.riscv()) {
            return o.output();
        }
        try {
            dev.splice.elf.ElfFile elf = dev.splice.elf.ElfFile.read(o.output());
            if (BatTables.read(elf).coldFragments().isEmpty()) {
                return o.output();
            }
            Path copy = dir().resolve(o.id() + ".perf2bolt.bolt");
            byte[] bytes = Files.readAllBytes(o.output());
            dev.splice.elf.Section strtab = elf.section(".strtab").orElseThrow();
            byte[] from = ".cold.".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            for (long i = strtab.offset(); i + from.length <= strtab.offset() + strtab.size(); i++) {
                if (java.util.Arrays.equals(bytes, (int) i, (int) i + from.length, from, 0, from.length)) {
                    bytes[(int) i] = '_';
                    bytes[(int) i + 5] = '_';
                }
            }
            Files.write(copy, bytes);
            copy.toFile().setExecutable(true);
            return copy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void write(Path path, String text) {
        try {
            Files.writeString(path, text);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
