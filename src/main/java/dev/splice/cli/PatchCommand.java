package dev.splice.cli;

import dev.splice.base.BadInputException;
import dev.splice.isa.Extension;
import dev.splice.isa.Isa;
import dev.splice.listing.Assembler;
import dev.splice.patch.BranchTarget;
import dev.splice.patch.Insertion;
import dev.splice.patch.Replacement;
import dev.splice.patch.Rewrite;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
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
    @Parameters(index = "0", paramLabel = "IN", description = "The input executable (never modified).")
    Path input;

    @Option(names = "--replace", arity = "2", paramLabel = "FUNCTION LISTING",
            description = "Replace FUNCTION (a name or 0xADDRESS) by the assembled LISTING, which must have the "
                    + "function's length. Repeatable.")
    List<String> replace = new ArrayList<>();

    @Option(names = "--insert", arity = "2", paramLabel = "ADDR FRAGMENT",
            description = "Insert the assembled FRAGMENT before the instruction at ADDR (decimal or 0x hex, input "
                    + "coordinates). Repeatable; several at one address form one fragment, in order.")
    List<String> insert = new ArrayList<>();

    @Option(names = "--insert-branch-target", paramLabel = "POLICY", defaultValue = "inserted",
            description = "Where direct branches, calls and other references to an insertion address go: "
                    + "'inserted' (run the fragment, default) or 'original' (skip it). Fall-through always runs it.")
    String branchTarget;

    @Option(names = "--insert-at-entries", paramLabel = "FRAGMENT",
            description = "Bulk instrumentation: insert FRAGMENT at the entry of every function that can move; the "
                    + "functions Splice refuses are left alone and counted on stderr (with --verbose, each with its reason).")
    Path atEntries;

    @Option(names = "--verbose", description = "With --insert-at-entries: print every skipped function and why.")
    boolean verbose;

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
            default -> throw new BadInputException("--insert-branch-target must be 'inserted' or 'original', not '"
                    + branchTarget + "'");
        };
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
        if (replacements.isEmpty() && insertions.isEmpty() && atEntries == null) {
            throw new BadInputException("nothing to do: give --replace, --insert or --insert-at-entries");
        }
        Rewrite rewrite = Rewrite.open(input);
        replacements.forEach(rewrite::replace);
        insertions.forEach(rewrite::insert);
        if (atEntries != null) {
            rewrite.insertAtEntries(read(atEntries), atEntries.toString(), policy);
        }
        Rewrite.Result result = rewrite.run();
        if (atEntries != null) {
            printBulk(result);
        }
        result.writeTo(output);
        return Main.OK;
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
        try {
            return Files.readString(p, StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new BadInputException(p + ": cannot read: " + e.getMessage());
        }
    }

    static long address(String text) {
        try {
            if (text.startsWith("0x") || text.startsWith("0X")) {
                return Long.parseUnsignedLong(text.substring(2), 16);
            }
            return Long.parseUnsignedLong(text);
        } catch (NumberFormatException e) {
            throw new BadInputException("bad address '" + text + "': decimal or 0x hex expected");
        }
    }
}
