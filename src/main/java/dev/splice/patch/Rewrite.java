package dev.splice.patch;

import dev.splice.base.AtomicFiles;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.patch.PatchException.Reason;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Write-back of a static RISC-V64 executable, the entry of the {@code patch} package: equal-length
 * replacement of functions and insertion of fragments before instructions (see docs/patch.md).
 * Collect the edits, then {@link #run()} (or {@link #writeTo(Path)}):
 *
 * <pre>{@code
 * Rewrite.open(Path.of("prog"))
 *         .insert(new Insertion(0x10400, "addi x0, x0, 0\n", BranchTarget.INSERTED))
 *         .writeTo(Path.of("prog.probed"));
 * }</pre>
 *
 * <p>Insertion points can also be chosen by pattern ({@link #at}: {@code loop:hot_*}, {@code exit:*}, ...;
 * docs/patch.md, "Choosing points"): the points a pattern selects that Splice would refuse are
 * left out and listed in {@link Result#refusedPoints()}, unless the rewrite is {@link #strict}.
 *
 * <p>Replacements apply first; insertions name addresses of the input, and need a binary linked
 * with {@code -Wl,--emit-relocs}. The input is never modified. What Splice cannot prove correct is
 * refused with a {@link PatchException}, whose {@link PatchException#reason() reason} says which
 * rule refused it.
 */
public final class Rewrite {
    private final ElfFile input;
    private final List<Replacement> replacements = new ArrayList<>();
    private final List<Insertion> insertions = new ArrayList<>();
    /** Insertions at the points of specs, in the order given. */
    private final List<PointInsertion> atPoints = new ArrayList<>();
    private boolean strict;
    /** Bulk insertion, when asked for. */
    private EntryFragment atEntries;
    private Counters counters = Counters.NONE;

    /** A fragment for every point a spec selects. */
    private record PointInsertion(PointSpec spec, String fragment, String fragmentName, BranchTarget policy) {}

    /** The fragment of bulk insertion, its name in messages, and where references to the entries go. */
    private record EntryFragment(String fragment, String name, BranchTarget policy) {}

    private Rewrite(ElfFile input) {
        this.input = input;
    }

    /**
     * A rewrite of the executable at {@code path}.
     *
     * @param path the input file, read now and never modified
     * @return a rewrite without edits yet
     */
    public static Rewrite open(Path path) {
        return new Rewrite(ElfFile.read(path));
    }

    /**
     * A rewrite of an executable read already.
     *
     * @param input the input binary
     * @return a rewrite without edits yet
     */
    public static Rewrite of(ElfFile input) {
        return new Rewrite(Objects.requireNonNull(input, "input"));
    }

    /**
     * Replaces a function's code by an assembled listing of the same length.
     *
     * @param replacement the function and its listing
     * @return this rewrite
     */
    public Rewrite replace(Replacement replacement) {
        replacements.add(Objects.requireNonNull(replacement, "replacement"));
        return this;
    }

    /**
     * Inserts a fragment before an instruction; several insertions at one address form one fragment, in order.
     *
     * @param insertion the address, the fragment and where references to the address go
     * @return this rewrite
     */
    public Rewrite insert(Insertion insertion) {
        insertions.add(Objects.requireNonNull(insertion, "insertion"));
        return this;
    }

    /**
     * Inserts a fragment at every point a spec selects (in the input's coordinates, after the
     * replacements, which keep every address). A point the selection refuses ({@link
     * Point#refusal()}) is refused like {@link #insert} when the spec names it explicitly (an
     * address, {@code SYMBOL+OFFSET}) or the rewrite is {@link #strict}; a pattern's refused points
     * are otherwise left out and listed in {@link Result#refusedPoints()}. Fragments at one
     * address, from several specs or insertions, run in the order they were added ({@link
     * #insert} insertions first).
     *
     * @param spec what selects the points
     * @param fragment the fragment's listing text
     * @param fragmentName names the fragment in messages
     * @param policy where references to the points go
     * @return this rewrite
     */
    public Rewrite at(PointSpec spec, String fragment, String fragmentName, BranchTarget policy) {
        atPoints.add(new PointInsertion(Objects.requireNonNull(spec, "spec"), Objects.requireNonNull(fragment, "fragment"),
                Objects.requireNonNull(fragmentName, "fragmentName"), Objects.requireNonNull(policy, "policy")));
        return this;
    }

    /**
     * Whether a point a pattern selects and Splice refuses fails the rewrite (instead of being left out).
     *
     * @param strict true to refuse the whole rewrite then
     * @return this rewrite
     */
    public Rewrite strict(boolean strict) {
        this.strict = strict;
        return this;
    }

    /**
     * Bulk insertion: inserts {@code fragment} at the entry of every function that can move and
     * leaves the others alone; {@link Result#inserted()} and {@link Result#skipped()} list them. A
     * second call replaces the first.
     *
     * @param fragment the fragment's listing text
     * @param fragmentName names the fragment in messages
     * @param policy where references to the entries go
     * @return this rewrite
     */
    public Rewrite insertAtEntries(String fragment, String fragmentName, BranchTarget policy) {
        atEntries = new EntryFragment(Objects.requireNonNull(fragment, "fragment"), fragmentName, policy);
        return this;
    }

    /**
     * Gives the output at least {@code count} 8-byte counters, zero at start, in a read-write
     * segment at {@code __splice_counters}, written to the counter file when the program ends (a
     * fragment that uses {@code {counter}} implies one per insertion). See docs/patch.md, "Fragments".
     *
     * @param count the number of counter slots (0: only those the fragments imply)
     * @return this rewrite
     */
    public Rewrite counters(int count) {
        counters = counters.withCount(count);
        return this;
    }

    /**
     * Names the file the counters are written to at exit ({@code %p} becomes the process id; the
     * environment variable {@code SPLICE_COUNTER_FILE} overrides it at run time).
     *
     * @param file the file's name (null or empty: {@code splice-counters.%p} in the working directory)
     * @return this rewrite
     */
    public Rewrite counterFile(String file) {
        counters = counters.withFile(file);
        return this;
    }

    /**
     * Links a user's runtime: an ELF64 RISC-V relocatable object (made by {@code gcc -c}), whose
     * global functions fragments may call like the shipped helpers, and whose
     * {@code __splice_user_exit}, if it defines one, runs at exit before the counters are written
     * (docs/instrument.md, "Runtime objects").
     *
     * @param object the object file
     * @return this rewrite
     * @throws PatchException if the object holds what Splice cannot link exactly
     */
    public Rewrite runtime(java.nio.file.Path object) {
        counters = counters.withRuntime(RuntimeObject.read(object));
        return this;
    }

    /**
     * Gives the output a zero-initialised read-write area of {@code bytes} bytes, in a PT_LOAD of its
     * own, for fragments to keep counters and data in: the NOBITS section {@code .splice.bss}, named
     * by the global symbol {@code __splice_data}. It comes with insertion (a rewrite that inserts
     * nothing changes nothing). A second call replaces the first. With counters or the runtime,
     * these bytes come first, at {@code __splice_data}; the runtime's scratch and the counters follow.
     *
     * @param bytes the area's size, &gt; 0
     * @return this rewrite
     */
    public Rewrite reserveData(long bytes) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("a data area of " + bytes + " bytes");
        }
        counters = counters.withData(bytes);
        return this;
    }

    /**
     * The instruction boundaries of {@code function} of the input where an insertion is accepted.
     *
     * @param function a function of the input
     * @return the accepted insertion addresses, in order
     * @throws PatchException when the function cannot move at all
     */
    public List<Long> insertionPoints(Function function) {
        return InsertionPoints.of(input, function);
    }

    /**
     * Makes the rewritten binary: the replacements, then the insertions (and the bulk insertion).
     *
     * @return the output and, for bulk insertion, the entries instrumented and the functions skipped
     * @throws PatchException when an edit is refused
     */
    public Result run() {
        // Without replacements insertion reads the input itself: no copy of its bytes.
        byte[] replaced = replacements.isEmpty() ? null : Replacer.replace(input, replacements);
        if (insertions.isEmpty() && atPoints.isEmpty() && atEntries == null && counters.slots() == 0) { // reserved data comes with insertion
            return new Result(replaced == null ? input.toBytes() : replaced, List.of(), List.of());
        }
        // Insertion reads the replaced binary, in the input's addresses (replacement keeps every length).
        ElfFile base = replaced == null ? input : ElfFile.parse(replaced, input.name());
        if (atPoints.isEmpty()) {
            return atEntries != null
                    ? BulkInserter.insertAtEntries(base, List.copyOf(insertions), atEntries.fragment(), atEntries.name(),
                            atEntries.policy(), counters)
                    : new Result(Inserter.insert(base, insertions, counters), List.of(), List.of());
        }
        Phases.mark("start");
        PointSelector selector = PointSelector.of(base);
        Phases.mark("read for selection");
        List<PointInserter.Planned> planned = new ArrayList<>();
        insertions.forEach(i -> planned.add(new PointInserter.Planned(i, null)));
        List<Point> refused = new ArrayList<>();
        for (PointInsertion at : atPoints) {
            for (Point p : selector.select(at.spec(), writes(selector, at))) {
                if (!p.accepted() && !p.kind().isExplicit()) {
                    if (strict) {
                        throw new PatchException(p.refusal().reason(), at.fragmentName() + " at " + p.location()
                                + " (selected by '" + p.spec() + "'): " + p.refusal().message());
                    }
                    refused.add(p);
                } else {
                    // An explicit point is inserted even when refused: insertion refuses it as it refuses --insert.
                    planned.add(new PointInserter.Planned(new Insertion(p.address(), at.fragment(), at.fragmentName(),
                            at.policy()), p));
                }
            }
        }
        Phases.mark("select points");
        if (atEntries != null) { // bulk mode retries without the entries it cannot move; the points are required
            List<Insertion> all = new ArrayList<>();
            planned.forEach(p -> all.add(p.insertion()));
            Result bulk = BulkInserter.insertAtEntries(base, all, atEntries.fragment(), atEntries.name(), atEntries.policy(),
                    counters);
            List<Point> points = planned.stream().map(PointInserter.Planned::point).filter(Objects::nonNull).toList();
            return new Result(bulk.bytes(), bulk.inserted(), bulk.skipped(), points, List.copyOf(refused));
        }
        PointInserter.Outcome outcome = PointInserter.insert(base, selector.input(), selector.decodings(), planned, refused, strict,
                counters);
        return new Result(outcome.bytes(), List.of(), List.of(), outcome.inserted(), outcome.refused());
    }

    /**
     * The integer registers {@code at}'s fragment may change ({@link WrittenRegisters}), for the
     * selection; any register when the binary is refused or the fragment does not assemble (insertion
     * reports that itself).
     */
    private long writes(PointSelector selector, PointInsertion at) {
        if (selector.input() == null) {
            return WrittenRegisters.ALL;
        }
        try {
            return Inserter.fragmentAssembler(selector.input(), counters, 0)
                    .writes(new Insertion(0, at.fragment(), at.fragmentName(), at.policy()));
        } catch (PatchException e) {
            return WrittenRegisters.ALL;
        }
    }

    /**
     * Makes the rewritten binary and writes it to {@code output} (see {@link Result#writeTo}).
     *
     * @param output the output file
     * @return what {@link #run()} returns
     * @throws PatchException when an edit is refused (nothing is written then)
     */
    public Result writeTo(Path output) {
        Result result = run();
        result.writeTo(output);
        return result;
    }

    /**
     * A rewritten binary.
     *
     * @param bytes the output file's bytes (the input's when nothing changed)
     * @param inserted bulk insertion: the function entries that received the fragment, in address order
     * @param skipped bulk insertion: the functions left alone, with the refusal, in address order
     * @param points the points of {@link #at} specs that received their fragment, in the order selected
     * @param refusedPoints the points of {@link #at} patterns left out because Splice refuses them
     */
    public record Result(byte[] bytes, List<Entry> inserted, List<Skipped> skipped, List<Point> points,
                         List<Point> refusedPoints) {
        /**
         * A result without points.
         *
         * @param bytes the output file's bytes
         * @param inserted bulk insertion: the entries instrumented
         * @param skipped bulk insertion: the functions left alone
         */
        public Result(byte[] bytes, List<Entry> inserted, List<Skipped> skipped) {
            this(bytes, inserted, skipped, List.of(), List.of());
        }

        /**
         * Writes the binary to {@code output} atomically (a failed write leaves no partial file),
         * executable (mode 0755 masked by the umask).
         *
         * @param output the output file
         */
        public void writeTo(Path output) {
            AtomicFiles.writeExecutable(output, bytes);
        }
    }

    /**
     * A function entry that received the bulk fragment.
     *
     * @param function the function's name
     * @param address its entry (input address)
     */
    public record Entry(String function, long address) {}

    /**
     * A function that bulk insertion left alone.
     *
     * @param function the function's name
     * @param address its entry (input address)
     * @param reason the rule that refused it
     * @param message what, where and why, as a {@link PatchException} says it
     */
    public record Skipped(String function, long address, Reason reason, String message) {}
}
