package dev.splice.patch;

import dev.splice.elf.ElfFile;
import dev.splice.isa.Decoder;
import dev.splice.listing.Assembler;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Bulk insertion: a fragment at the entry of every function that can move
 * ({@link MovableFunctions}). A function that a later stage refuses is left alone and the rewrite
 * retried without it. The binary is read and its relocations indexed once; the functions decoded
 * while finding the movable ones are taken over by the first attempt.
 */
final class BulkInserter {
    /** More attempts than this means something other than single functions is refused. */
    private static final int MAX_ATTEMPTS = 1000;

    private BulkInserter() {}

    /**
     * {@code explicit} plus {@code fragment} at every entry that can move (with the counters and the
     * data area {@code counters} asks for), with what was inserted and skipped.
     */
    static Rewrite.Result insertAtEntries(ElfFile elf, List<Insertion> explicit, String fragment, String fragmentName,
                                          BranchTarget policy, Counters counters) {
        Phases.mark("start");
        // The ISA tables and the assembler load on the other core while this one parses the symbols and
        // relocations (cached by elf). Assembling the fragment here only warms the assembler up: the
        // rewrite assembles and checks it again, and reports what is wrong with it.
        Background<Decoder> isa = Background.start("isa", () -> {
            Decoder d = Rv.ISA.decoder(Input.decodable(BinaryTarget.of(elf)));
            try {
                Assembler.assemble(fragment, fragmentName, 0L, Map.of());
            } catch (RuntimeException e) {
                // reported by the rewrite
            }
            return d;
        });
        Input in = Input.read(elf, isa::join);
        Phases.mark("prepare");
        MovableFunctions.Found found = MovableFunctions.find(in);
        List<Rewrite.Skipped> skipped = new ArrayList<>(found.skipped());
        TreeMap<Long, String> entries = new TreeMap<>(); // address -> function name
        Map<Long, MovedFunction> predecoded = new HashMap<>();
        for (MovedFunction m : found.decoded()) {
            entries.putIfAbsent(m.function.address(), m.function.name());
            predecoded.put(m.function.address(), m);
        }
        // Each attempt assembles fragments with what the first one assembled (bytes by text).
        FragmentAssembler fragments = Inserter.fragmentAssembler(in, counters, explicit.size() + entries.size());
        for (int attempt = 0; ; attempt++) {
            List<Insertion> all = new ArrayList<>(explicit);
            for (long a : entries.keySet()) {
                all.add(new Insertion(a, fragment, fragmentName, policy));
            }
            try {
                byte[] out;
                if (all.isEmpty()) {
                    out = elf.toBytes();
                } else {
                    if (attempt == 0) {
                        Input.requireInsertable(elf);
                    }
                    out = Inserter.rewrite(in, all, attempt == 0 ? predecoded : Map.of(),
                            attempt == 0 ? fragments : fragments.copy(), counters);
                }
                return result(out, entries, skipped);
            } catch (PatchException e) {
                long f = e.functionAddress();
                String name = f < 0 ? null : entries.remove(f);
                if (name == null || attempt > MAX_ATTEMPTS) {
                    throw e;
                }
                skipped.add(new Rewrite.Skipped(name, f, e.reason(), e.getMessage()));
            }
        }
    }

    private static Rewrite.Result result(byte[] bytes, TreeMap<Long, String> entries, List<Rewrite.Skipped> skipped) {
        List<Rewrite.Entry> inserted = new ArrayList<>(entries.size());
        entries.forEach((address, name) -> inserted.add(new Rewrite.Entry(name, address)));
        List<Rewrite.Skipped> sorted = new ArrayList<>(skipped);
        sorted.sort(Comparator.comparingLong(Rewrite.Skipped::address)); // stable: the order found within an address
        return new Rewrite.Result(bytes, List.copyOf(inserted), List.copyOf(sorted));
    }
}
