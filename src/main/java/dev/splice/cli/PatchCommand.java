package dev.splice.cli;

import dev.splice.base.AddressText;
import dev.splice.base.BadInputException;
import dev.splice.base.InputFiles;
import dev.splice.base.OutputPaths;
import dev.splice.isa.Extension;
import dev.splice.isa.Isa;
import dev.splice.listing.Assembler;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.elf.ElfFile;
import dev.splice.elf.SymbolAddress;
import dev.splice.patch.BranchTarget;
import dev.splice.patch.Insertion;
import dev.splice.patch.Point;
import dev.splice.patch.PointPlan;
import dev.splice.patch.PointSpec;
import dev.splice.patch.PointSpecException;
import dev.splice.patch.Replacement;
import dev.splice.patch.Rewrite;
import dev.splice.patch.RewriteSummary;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code splice patch}: equal-length replacement and insertion of machine code (see docs/patch.md). */
@Command(
        name = "patch",
        mixinStandardHelpOptions = true,
        description = {
            "Writes a copy of a RISC-V64 executable (static, PIE or dynamically linked) or shared library with "
                    + "functions replaced by listings of equal length "
                    + "and/or fragments inserted before chosen instructions. Replacements come first, insertions use "
                    + "the input's addresses. Insertion needs a binary linked with -Wl,--emit-relocs; what Splice "
                    + "cannot prove correct is refused with the reason (exit status 2)."
        })
public final class PatchCommand implements Callable<Integer>, Main.WarmsUp {
    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Parameters(index = "0", paramLabel = "IN", description = "The input executable (never modified).")
    Path input;

    /** The input, read only when an address names a symbol. */
    private ElfFile inputElf;

    @Option(names = "--replace", arity = "2", paramLabel = "FUNCTION LISTING",
            description = "Replace FUNCTION (a name or 0xADDRESS) by the assembled LISTING, which must have the "
                    + "function's length. Repeatable.")
    List<String> replace = new ArrayList<>();

    @Option(names = "--insert", arity = "2", paramLabel = "ADDR FRAGMENT",
            description = "Insert the assembled FRAGMENT before the instruction at ADDR (0x hex, decimal, bare hex "
                    + "as objdump prints it, or SYMBOL+OFFSET; input coordinates). Repeatable; several at one address form one fragment, in order.")
    List<String> insert = new ArrayList<>();

    @Option(names = "--at", arity = "2", paramLabel = "SPEC FRAGMENT",
            description = "Insert the assembled FRAGMENT at every point SPEC selects: ADDR, SYMBOL+OFFSET, entry:GLOB, "
                    + "exit:GLOB, block:GLOB, call:GLOB, loop:GLOB, insn:GLOB:REGEX (see 'splice points'). Repeatable; "
                    + "fragments at one point run in command-line order, after --insert's. A pattern's points that "
                    + "Splice refuses are left out and counted on stderr (see --strict).")
    List<String> at = new ArrayList<>();

    @Option(names = "--plan", paramLabel = "FILE",
            description = "Take more --at insertions from FILE: JSON {\"insertions\": [{\"at\": SPEC, \"fragment\": "
                    + "FILE}]} or lines 'SPEC FRAGMENT-FILE'; fragment files are relative to the plan's directory. "
                    + "Repeatable; applied after the --at options.")
    List<Path> plans = new ArrayList<>();

    @Option(names = "--strict", description = "Refuse the whole rewrite when a pattern selects a point Splice refuses.")
    boolean strict;

    @Option(names = "--json", description = "Print what was done as one JSON object on stdout: points inserted and "
            + "refused (with reason codes), functions moved, new sections and segments, file sizes.")
    boolean json;

    @Option(names = "--insert-branch-target", paramLabel = "POLICY", defaultValue = "inserted",
            description = "Where direct branches, calls and other references to an insertion address go: "
                    + "'inserted' (run the fragment, default) or 'original' (skip it). Fall-through always runs it.")
    String branchTarget;

    @Option(names = "--insert-at-entries", paramLabel = "FRAGMENT",
            description = "Bulk instrumentation: insert FRAGMENT at the entry of every function that can move; the "
                    + "functions Splice refuses are left alone and counted on stderr (with --verbose, each with its reason).")
    Path atEntries;

    @Option(names = "--verbose", description = "Print every function --insert-at-entries skipped and every point a "
            + "pattern selected that was refused, with the reason.")
    boolean verbose;

    // Counters and the runtime (docs/patch.md, "Fragments").
    @Option(names = "--counters", paramLabel = "N", defaultValue = "0",
            description = "Give the output N 8-byte counters at __splice_counters (zero at start, in a read-write "
                    + "segment), written to the counter file when the program ends. A fragment using {counter} "
                    + "implies one per insertion.")
    int counters;

    @Option(names = "--counter-file", paramLabel = "PATH",
            description = "The file the counters are written to at exit (default splice-counters.%%p; %%p is the "
                    + "process id). The environment variable SPLICE_COUNTER_FILE overrides it at run time.")
    String counterFile;

    @Option(names = "--runtime", paramLabel = "FILE.o",
            description = "Link a RISC-V relocatable object (gcc -c, -fno-pic) into the runtime: fragments may call its "
                    + "global functions (C calling convention), and its __splice_user_exit, if defined, runs at exit "
                    + "before the counters are written. Its undefined names resolve to the runtime's and the "
                    + "program's symbols; what cannot be linked exactly is refused (docs/instrument.md).")
    Path runtime;

    @Option(names = {"-o", "--output"}, required = true, paramLabel = "OUT", description = "The output executable.")
    Path output;

    /**
     * Loads what a rewrite needs first (the ISA tables and the rv64gc decoder, the assembler, the
     * JDK's SHA-256 providers, slow on first use) on another core while picocli parses the
     * arguments. A start-up optimization only: the library loads the same when it needs them.
     */
    @Override
    public void warmUp() {
        Thread thread = new Thread(() -> {
            Isa.rv64().decoder(Extension.all());
            try {
                MessageDigest.getInstance("SHA-256").digest();
                Assembler.assemble("addi x0, x0, 0\n", "warm-up", 0L, Map.of());
            } catch (NoSuchAlgorithmException | RuntimeException e) {
                // a warm-up never fails the command: the rewrite meets the same problem and reports it
            }
        }, "splice-warm-up");
        thread.setDaemon(true);
        thread.start();
    }

    @Override
    public Integer call() throws Exception {
        BranchTarget policy = switch (branchTarget) {
            case "inserted" -> BranchTarget.INSERTED;
            case "original" -> BranchTarget.ORIGINAL;
            default -> throw new CommandLine.ParameterException(spec.commandLine(),
                    "--insert-branch-target must be 'inserted' or 'original', not '" + branchTarget + "'");
        };
        OutputPaths.check(output, inputFiles());
        List<Replacement> replacements = new ArrayList<>();
        for (int i = 0; i + 1 < replace.size(); i += 2) {
            Path listing = Path.of(replace.get(i + 1));
            replacements.add(new Replacement(replace.get(i), read(listing), listing.toString()));
        }
        List<Insertion> insertions = new ArrayList<>();
        for (int i = 0; i + 1 < insert.size(); i += 2) {
            Path fragment = Path.of(insert.get(i + 1));
            insertions.add(new Insertion(address(insert.get(i)), read(fragment), fragment.toString(), policy));
        }
        if (counters < 0) {
            throw new BadInputException("--counters must not be negative, not " + counters);
        }
        List<PointPlan.Entry> points = new ArrayList<>();
        for (int i = 0; i + 1 < at.size(); i += 2) {
            Path fragment = Path.of(at.get(i + 1));
            PointSpec spec;
            try {
                spec = PointSpec.parse(at.get(i));
            } catch (PointSpecException e) {
                throw new BadInputException("--at number " + (i / 2 + 1) + ": " + e.getMessage());
            }
            points.add(new PointPlan.Entry(spec, read(fragment), fragment.toString()));
        }
        for (Path plan : plans) {
            points.addAll(PointPlan.read(plan).entries());
        }
        if (replacements.isEmpty() && insertions.isEmpty() && points.isEmpty() && atEntries == null) {
            throw new BadInputException("nothing to do: give --replace, --insert, --at, --plan or --insert-at-entries");
        }
        Rewrite rewrite = Rewrite.open(input).strict(strict).counters(counters).counterFile(counterFile);
        if (runtime != null) {
            rewrite.runtime(runtime);
        }
        replacements.forEach(rewrite::replace);
        insertions.forEach(rewrite::insert);
        points.forEach(p -> rewrite.at(p.spec(), p.fragment(), p.fragmentName(), policy));
        if (atEntries != null) {
            rewrite.insertAtEntries(read(atEntries), atEntries.toString(), policy);
        }
        Rewrite.Result result = rewrite.run();
        if (atEntries != null) {
            printBulk(result);
        }
        if (!points.isEmpty()) {
            printPoints(result);
        }
        result.writeTo(output);
        if (json) {
            printJson(result);
        }
        return Main.OK;
    }

    /** Every file the command reads: the output may be none of them. */
    private Path[] inputFiles() {
        List<Path> files = new ArrayList<>(List.of(input));
        for (List<String> pairs : List.of(replace, insert, at)) {
            for (int i = 1; i < pairs.size(); i += 2) {
                files.add(Path.of(pairs.get(i)));
            }
        }
        if (atEntries != null) {
            files.add(atEntries);
        }
        files.addAll(plans);
        return files.toArray(Path[]::new);
    }

    private void printPoints(Rewrite.Result result) {
        if (result.refusedPoints().isEmpty()) {
            return;
        }
        System.err.println("splice: inserted at " + result.points().size() + " points; left out " + result.refusedPoints().size()
                + " refused points" + (verbose ? ":" : " (--verbose or --json lists them)"));
        if (verbose) {
            for (Point p : result.refusedPoints()) {
                System.err.println("  " + p.location() + " (" + p.spec() + "): " + p.refusal().reason() + ": " + p.refusal().message());
            }
        }
    }

    private void printJson(Rewrite.Result result) throws java.io.IOException {
        RewriteSummary summary = RewriteSummary.of(ElfFile.read(input), ElfFile.parse(result.bytes(), output.toString()));
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = mapper.createObjectNode();
        root.put("input", input.toString());
        root.put("output", output.toString());
        root.put("inputSize", summary.inputSize());
        root.put("outputSize", summary.outputSize());
        root.set("inserted", PointsJson.points(mapper, result.points()));
        root.set("refused", PointsJson.points(mapper, result.refusedPoints()));
        ArrayNode entries = root.putArray("entries");
        result.inserted().forEach(e -> entries.addObject().put("function", e.function()).put("address", PointsJson.hex(e.address())));
        ArrayNode skipped = root.putArray("skipped");
        result.skipped().forEach(k -> skipped.addObject().put("function", k.function()).put("address", PointsJson.hex(k.address()))
                .put("reason", k.reason().name()).put("message", k.message()));
        ArrayNode moved = root.putArray("moved");
        summary.moved().forEach(m -> moved.addObject().put("function", m.name()).put("from", PointsJson.hex(m.from()))
                .put("to", PointsJson.hex(m.to())).put("size", m.size()));
        ArrayNode sections = root.putArray("sections");
        summary.sections().forEach(s -> sections.addObject().put("name", s.name()).put("address", PointsJson.hex(s.address()))
                .put("size", s.size()));
        ArrayNode segments = root.putArray("segments");
        summary.segments().forEach(s -> segments.addObject().put("type", s.type()).put("flags", s.flags())
                .put("address", PointsJson.hex(s.address())).put("fileSize", s.fileSize()).put("memorySize", s.memorySize()));
        System.out.println(mapper.writeValueAsString(root));
    }

    private void printBulk(Rewrite.Result result) {
        Map<String, String> skipped = new TreeMap<>(); // by label: the order this summary has always had
        for (Rewrite.Skipped s : result.skipped()) {
            skipped.put(s.function() + "@0x" + Long.toHexString(s.address()), s.message());
        }
        System.err.println("splice: inserted " + atEntries + " at " + result.inserted().size() + " function entries; skipped "
                + skipped.size() + " functions" + (verbose ? ":" : " (--verbose lists them)"));
        if (verbose) {
            skipped.forEach((f, why) -> System.err.println("  " + f + ": " + why));
        }
    }

    private static String read(Path p) {
        return InputFiles.readString(p);
    }

    /** An address as {@link AddressText} reads it; a symbol is looked up in the input. */
    private long address(String text) {
        AddressText.Parsed a;
        try {
            a = AddressText.parse(text);
        } catch (IllegalArgumentException e) {
            throw new BadInputException("bad address: " + e.getMessage());
        }
        if (a.isNumber()) {
            return a.offset();
        }
        if (inputElf == null) {
            inputElf = ElfFile.read(input);
        }
        return SymbolAddress.resolve(inputElf, a.symbol(), a.offset(), "--insert " + text);
    }
}
