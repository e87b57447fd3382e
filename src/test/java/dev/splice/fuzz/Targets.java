package dev.splice.fuzz;

import dev.splice.Binary;
import dev.splice.bat.BatFunction;
import dev.splice.bat.BatTables;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.listing.Assembler;
import dev.splice.listing.JsonlWriter;
import dev.splice.listing.ListingWriter;
import dev.splice.listing.Region;
import dev.splice.patch.BranchTarget;
import dev.splice.patch.Insertion;
import dev.splice.patch.Rewrite;
import dev.splice.profile.ProfileTranslation;
import dev.splice.profile.TranslatedProfile;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.campaign.BadRow;
import dev.splice.weigh.campaign.Campaign;
import dev.splice.weigh.campaign.CampaignLayout;
import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.PairRows;
import dev.splice.weigh.campaign.PluginRecords;
import dev.splice.weigh.campaign.Weights;
import dev.splice.weigh.map.CatalogMapper;
import dev.splice.weigh.model.ModelOptions;
import dev.splice.weigh.model.ModelResult;
import dev.splice.weigh.model.SyntheticCampaign;
import dev.splice.weigh.model.WeighModel;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringReader;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * The fuzz targets: every parser and every consumer of parsed data (issue 15). Seeds come from the
 * test programs under {@code build/}, a BOLT output made here with llvm-bolt-22 --enable-bat, real
 * plugin records made here under QEMU, and a synthetic campaign run through the real model.
 */
public final class Targets {
    private Targets() {}

    /** Made once per build directory and kept: the BOLT outputs the BOLTed-binary targets mutate. */
    private static final Path BUILT = TestPrograms.root().resolve("target/fuzz");

    /** Scratch files the file-reading targets write per input. */
    private static final Path WORK = work();

    private static Path work() {
        try {
            // On tmpfs where there is one: rewriting a file in place on ext4 waits for its blocks at close
            // (auto_da_alloc), which made the file-reading targets wait ~25 ms per input on a busy disk.
            Path shm = Path.of("/dev/shm");
            Path base = Files.isDirectory(shm) && Files.isWritable(shm) ? shm.resolve("splice-fuzz") : BUILT;
            // One directory per process: a fuzzing run and the test suite's pass may run at once.
            Path d = base.resolve(Long.toString(ProcessHandle.current().pid()));
            Files.createDirectories(d);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(d)));
            return d;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void deleteTree(Path root) {
        try (var paths = Files.walk(root)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException | UncheckedIOException e) {
            // Best effort at exit: a left-over scratch directory holds only fuzz inputs.
        }
    }

    /**
     * Every target, seeds built.
     *
     * @return the targets, in a fixed order
     * @throws IOException if a seed cannot be read or built
     */
    public static List<FuzzTarget> all() throws IOException {
        List<byte[]> elves = smallPrograms();
        List<byte[]> relocatable = new ArrayList<>();
        for (String p : List.of("count_loop.relocs", "call_pairs.relocs", "entries.relocs", "bat_entries.relocs")) {
            relocatable.add(Files.readAllBytes(TestPrograms.rv64(p)));
        }
        // Regular pages: a 15 KB output where huge-page alignment gives 4 MB of zeros to mutate.
        Path bolted = bolted("bat_entries.bolt.small", "--no-huge-pages");
        ElfFile boltedElf = ElfFile.read(bolted);
        ElfFile boltInput = ElfFile.read(TestPrograms.rv64("bat_entries.relocs"));
        Section note = boltedElf.section(BatTables.SECTION_NAME).orElseThrow();
        byte[] noteBytes = boltedElf.contents(note);
        List<byte[]> pa = List.of(preAggregated(boltedElf).getBytes(StandardCharsets.US_ASCII));
        List<byte[]> perfScript = List.of(perfScript(boltedElf).getBytes(StandardCharsets.US_ASCII));
        List<byte[]> listings = listings(elves);
        List<byte[]> fragments = fragments();
        ElfFile patchBase = ElfFile.read(TestPrograms.rv64("count_loop.relocs"));
        long patchAt = patchBase.header().entry();
        Path campaignDir = WORK.resolve("campaign");
        SyntheticCampaign synthetic = SyntheticCampaign.typical(2, 3).with(b -> {
            b.runs = 3;
            b.rounds = 8;
            return b;
        });
        synthetic.write(campaignDir);
        CampaignLayout layout = new CampaignLayout(campaignDir);
        List<byte[]> pairs = List.of(Files.readAllBytes(layout.pairs()));
        // The reader's target needs rows, not a whole campaign: the first 48 (about 8 KB).
        List<byte[]> pairRows = List.of(String.join("\n", Files.readAllLines(layout.pairs()).subList(0, 48))
                .concat("\n").getBytes(StandardCharsets.UTF_8));
        ModelResult model = WeighModel.run(synthetic.campaign(), options());
        model.writeTo(WORK.resolve("weights"));
        List<byte[]> weights = List.of(Files.readAllBytes(WORK.resolve("weights/weights.json")));
        List<byte[]> catalogs = List.of(catalog().toJson().getBytes(StandardCharsets.UTF_8));
        var contextWeights = Weights.read(WORK.resolve("weights/weights.json")).contexts();
        List<byte[]> records = pluginRecords();
        Mutator elfMutator = new ElfMutator();
        Mutator listing = (s, r) -> Mutator.text(s, r, Mutator.LISTING_TOKENS);
        Mutator json = Mutator::json;
        return List.of(
                new FuzzTarget("elf", elves, elfMutator, Targets::exerciseElf, 64),
                new FuzzTarget("disasm", elves, elfMutator, Targets::disassemble, 4096),
                new FuzzTarget("asm", listings, listing, b -> Assembler.assemble(text(b), "fuzz.s"), 4096),
                new FuzzTarget("bat-note", List.of(noteBytes), elfMutatorOfNote(), Targets::batQueries, 256),
                boltedTarget(bolted, pa.get(0)),
                new FuzzTarget("profile-pa", pa, listing,
                        b -> translate(boltedElf, b, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                                TestPrograms.rv64("bat_entries.relocs")), 4096),
                new FuzzTarget("profile-perf-script", perfScript, listing,
                        b -> translate(boltedElf, b, ProfileTranslation.InputFormat.PERF_SCRIPT, null), 4096),
                new FuzzTarget("fragment", fragments, listing, b -> Rewrite.of(patchBase)
                        .insert(new Insertion(patchAt, text(b), "fuzz.s", BranchTarget.INSERTED)).run(), 4096),
                new FuzzTarget("patch", relocatable, elfMutator, b -> {
                    Rewrite.Result result = Rewrite.of(ElfFile.parse(b, "patch-input"))
                            .insertAtEntries("nop\n", "nop.s", BranchTarget.INSERTED).run();
                    ElfFile.parse(result.bytes(), "patch-output");
                }, 4096),
                new FuzzTarget("pairs", pairRows, json, b -> PairRows.read(file("pairs.jsonl", b), false, true, new ArrayList<BadRow>()), 64),
                new FuzzTarget("model", pairs, json, b -> {
                    Path dir = WORK.resolve("model");
                    Files.createDirectories(dir);
                    Files.write(new CampaignLayout(dir).pairs(), b);
                    WeighModel.run(Campaign.read(dir, true), options());
                }, 1 << 16),
                new FuzzTarget("weights", weights, json, b -> Weights.read(file("weights.json", b)), 256),
                new FuzzTarget("catalog", catalogs, json, b -> CatalogMapper.map(
                        contextWeights, Catalog.read(file("catalog.json", b))), 256),
                new FuzzTarget("plugin-records", records, listing, b -> PluginRecords.read(file("plugin.records", b)), 256));
    }

    private static ModelOptions options() {
        return ModelOptions.defaults().withReplicates(ModelOptions.MIN_REPLICATES).withThreads(1).withSeed(7);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static Path file(String name, byte[] b) throws IOException {
        Path p = WORK.resolve(name);
        Files.write(p, b);
        return p;
    }

    /** The test programs of at most 8 KB (the fuzzer runs them fast), and a dynamic PIE. */
    private static List<byte[]> smallPrograms() throws IOException {
        List<byte[]> out = new ArrayList<>();
        for (Path p : TestPrograms.allRv64()) {
            if (Files.size(p) <= 8192) {
                out.add(Files.readAllBytes(p));
            }
        }
        out.add(Files.readAllBytes(TestPrograms.rv64Pie("loops")));
        return out;
    }

    /**
     * The BOLTed-binary target over one BOLT output: its bytes mutated, then translation of a
     * profile (with the input named on every other input).
     *
     * @param bolted the BOLT output ({@link #bolted})
     * @param profile a pre-aggregated profile over its functions
     * @return the target
     * @throws IOException if the output cannot be read
     */
    static FuzzTarget boltedTarget(Path bolted, byte[] profile) throws IOException {
        return new FuzzTarget("bolted", List.of(Files.readAllBytes(bolted)), new ElfMutator(),
                b -> translate(ElfFile.parse(b, "bolted"), profile, ProfileTranslation.InputFormat.PRE_AGGREGATED,
                        (b.length & 1) == 0 ? TestPrograms.rv64("bat_entries.relocs") : null), 16);
    }

    /**
     * The same over BOLT's default (huge-page aligned, 4 MB) output of bat_entries.relocs, on which
     * a forged block table once reached the YAML writer ({@code FuzzPassTest} replays it).
     *
     * @return the target
     * @throws IOException if the output cannot be made or read
     */
    static FuzzTarget boltedHugePagesTarget() throws IOException {
        Path bolted = bolted("bat_entries.bolt");
        return boltedTarget(bolted, preAggregated(ElfFile.read(bolted)).getBytes(StandardCharsets.US_ASCII));
    }

    /** A BOLT output of bat_entries.relocs with BAT tables and the extra options, made once per build directory. */
    private static Path bolted(String name, String... options) {
        Path out = BUILT.resolve(name);
        if (!Files.exists(out)) {
            try {
                Files.createDirectories(BUILT);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            List<String> command = new ArrayList<>(List.of("llvm-bolt-22", TestPrograms.rv64("bat_entries.relocs").toString(),
                    "-o", out.toString(), "--enable-bat", "--reorder-blocks=reverse"));
            command.addAll(List.of(options));
            Tools.run(command, null, 300).checked("llvm-bolt-22");
        }
        return out;
    }

    /** Records over the BOLTed functions: branches, fall-throughs, samples, traces, an event. */
    private static String preAggregated(ElfFile elf) {
        StringBuilder s = new StringBuilder("E cycles\n");
        Random r = new Random(1);
        for (dev.splice.elf.Function f : elf.functions()) {
            long a = f.address();
            long b = a + 2 * r.nextInt((int) Math.max(1, f.size() / 2));
            s.append(String.format("B %x %x %d %d%n", a, b, 1 + r.nextInt(100), r.nextInt(3)));
            s.append(String.format("F %x %x %d%n", a, b, 1 + r.nextInt(100)));
            s.append(String.format("S %x %d%n", b, 1 + r.nextInt(100)));
            s.append(String.format("T %x %x %x %d%n", a, b, b + 2, 1 + r.nextInt(10)));
        }
        return s.toString();
    }

    private static String perfScript(ElfFile elf) {
        StringBuilder s = new StringBuilder();
        for (dev.splice.elf.Function f : elf.functions()) {
            long a = f.address();
            s.append(String.format(" %x 0x%x/0x%x/P/-/-/0 0x%x/0x%x/M/-/-/0%n", a, a, a + 4, a + 8, a));
        }
        return s.toString();
    }

    private static List<byte[]> listings(List<byte[]> elves) {
        List<byte[]> out = new ArrayList<>();
        for (int i = 0; i < Math.min(6, elves.size()); i++) {
            Binary b = Binary.of(elves.get(i), "seed");
            out.add(new ListingWriter(false, b.symbolMap()).toText(b.regions(List.of(), List.of())).getBytes(StandardCharsets.UTF_8));
        }
        out.add(("""
                .target rv64gc
                .region text, 0x10000
                start:
                    li a0, 0x123456789abcdef
                    la a1, data
                1:  addi a0, a0, -1
                    bnez a0, 1b
                    call f
                    j 1f
                f:  ret
                1:  tail start
                data:
                    .dword 0x7fffffffffffffff
                    .word 1, 2
                    .byte 3
                """).getBytes(StandardCharsets.UTF_8));
        return out;
    }

    private static List<byte[]> fragments() throws IOException {
        List<byte[]> out = new ArrayList<>(List.of("nop\n".getBytes(StandardCharsets.UTF_8),
                "addi sp, sp, -16\nsd a0, 0(sp)\nli a0, 1\n1: addi a0, a0, -1\nbnez a0, 1b\nld a0, 0(sp)\naddi sp, sp, 16\n"
                        .getBytes(StandardCharsets.UTF_8)));
        try (var files = Files.list(TestPrograms.root().resolve("examples"))) {
            for (Path p : files.filter(p -> p.toString().endsWith(".s")).sorted().toList()) {
                out.add(Files.readAllBytes(p));
            }
        }
        return out;
    }

    private static Catalog catalog() {
        return new Catalog(List.of(new Catalog.Entry("div", null, 5, 100, -1, -1),
                new Catalog.Entry("beq", null, -1, -1, 7, -1), new Catalog.Entry("addi", null, -1, -1, 7, -1),
                new Catalog.Entry("mystery", "zicsr", -1, -1, 1, -1)));
    }

    /** Real records of the plugin's four modes on plugin_markers. */
    private static List<byte[]> pluginRecords() throws IOException {
        List<byte[]> out = new ArrayList<>();
        Path plugin = dev.splice.weigh.PluginFixtures.pluginLibrary();
        for (String mode : List.of("count", "validation", "timing", "catalog")) {
            Path records = WORK.resolve(mode + ".records");
            Tools.run(List.of(QemuRunner.QEMU, "-plugin", plugin + ",mode=" + mode + ",out=" + records,
                    TestPrograms.rv64("plugin_markers").toString()), null, 60).checked("qemu " + mode);
            out.add(Files.readAllBytes(records));
        }
        return out;
    }

    /** Everything the reader offers, as the commands use it. */
    private static void exerciseElf(byte[] b) {
        ElfFile elf = ElfFile.parse(b, "fuzz");
        for (Section s : elf.sections()) {
            elf.contents(s);
            elf.sectionContaining(s.address());
        }
        elf.symbols();
        elf.dynamicSymbols();
        for (dev.splice.elf.Function f : elf.functions()) {
            elf.functionContaining(f.address());
        }
        elf.notes();
        elf.buildId();
        elf.relocations();
        elf.edit().toBytes();
    }

    private static final OutputStream NOWHERE = OutputStream.nullOutputStream();

    /** disasm and its JSON lines, and the listing reassembles to the same bytes. */
    private static void disassemble(byte[] b) throws IOException {
        Binary binary = Binary.of(b, "fuzz");
        List<Region> regions = binary.regions(List.of(), List.of());
        String text = new ListingWriter(false, binary.symbolMap()).toText(regions);
        new JsonlWriter(true, binary.symbolMap()).write(regions, NOWHERE);
        binary.functions();
        reassemblesExactly(text, regions);
    }

    /** An unedited listing is exact: it assembles to the same regions, byte for byte (a lie is a finding). */
    private static void reassemblesExactly(String text, List<Region> regions) {
        List<Region> back;
        try {
            back = Assembler.assemble(text, "listing").regions();
        } catch (dev.splice.base.BadInputException e) {
            throw new AssertionError("the unedited listing does not assemble: " + e.getMessage(), e);
        }
        if (back.size() != regions.size()) {
            throw new AssertionError("the listing reassembles to " + back.size() + " regions, not " + regions.size());
        }
        for (int i = 0; i < back.size(); i++) {
            if (back.get(i).address() != regions.get(i).address()
                    || !java.util.Arrays.equals(back.get(i).bytes(), regions.get(i).bytes())) {
                throw new AssertionError("region " + regions.get(i).name() + " does not reassemble to the same bytes");
            }
        }
    }

    /** Decoding, then every query translation makes, over every function and fragment. */
    private static void batQueries(byte[] note) {
        BatTables bat = BatTables.decodeNote(note, "note");
        for (BatFunction f : bat.functions()) {
            long a = f.address();
            bat.isBatFunction(a);
            bat.map(a);
            bat.functionHash(a);
            bat.blockCount(a);
            bat.secondaryEntryPoints(a);
            bat.blocks(a).containing(0);
            for (int i = 0; i < Math.min(64, f.map().size()); i++) {
                long off = f.map().outputOffset(i);
                bat.translate(a, off, i % 2 == 0);
                bat.fallthroughsInTrace(a, off, off + 8);
                bat.secondaryEntryPointId(a, f.map().inputOffset(i));
                bat.translateSymbol(a, a + off, 0);
            }
            bat.fetchParentAddress(a);
        }
        for (var c : bat.coldFragments()) {
            bat.fetchParentAddress(c.address());
            bat.translate(c.address(), 0, false);
            bat.blocks(c.parentAddress());
        }
        bat.encodeNote();
    }

    /** The note is fuzzed as bytes and LEB128 runs over its whole descriptor. */
    private static Mutator elfMutatorOfNote() {
        return (s, r) -> switch (r.nextInt(3)) {
            case 0 -> Mutator.withLebRun(s, 20, s.length, r);
            case 1 -> {
                byte[] b = s.clone();
                Mutator.put(b, 4 * r.nextInt(3), 4, Mutator.fieldValue(Mutator.get(b, 0, 4), b.length, r));
                yield b;
            }
            default -> Mutator.bytes(s, r);
        };
    }

    private static void translate(ElfFile elf, byte[] profile, ProfileTranslation.InputFormat format, Path input)
            throws IOException {
        ProfileTranslation.Options options = new ProfileTranslation.Options(false, (profile.length & 2) == 0, input, null);
        TranslatedProfile p = ProfileTranslation.translate(elf, new StringReader(text(profile)), format, options);
        p.write(new StringWriter(), ProfileTranslation.OutputFormat.FDATA);
        if (BatTables.enabledFor(elf)) {
            p.write(new StringWriter(), ProfileTranslation.OutputFormat.YAML);
        }
    }
}
