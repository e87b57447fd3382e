package dev.splice.bat;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.testing.BoltOutputs;
import java.util.ArrayList;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * Random mutations of real tables (byte changes, insertions, deletions, truncations): decoding
 * either succeeds (and then re-encodes and answers queries) or throws BadInputException naming an
 * offset; never another exception, never a hang.
 */
class BatMutationProperties {
    private static List<byte[]> notes;

    private static synchronized List<byte[]> notes() {
        if (notes == null) {
            List<byte[]> list = new ArrayList<>();
            for (String id : List.of("rv64-entries-reverse-icf", "x86_64-entries-splitall-reverse-icf",
                    "x86_64-loops-splitall-exttsp-cdsort-icf")) {
                ElfFile elf = ElfFile.read(BoltOutputs.get(id).output());
                list.add(elf.contents(elf.section(BatTables.SECTION_NAME).orElseThrow()));
            }
            notes = list;
        }
        return notes;
    }

    record Mutation(int note, int kind, int position, int value) {}

    @Provide
    Arbitrary<List<Mutation>> mutations() {
        Arbitrary<Mutation> one = Combinators.combine(Arbitraries.integers().between(0, 2), Arbitraries.integers().between(0, 3),
                Arbitraries.integers().between(0, Integer.MAX_VALUE), Arbitraries.integers().between(0, 255)).as(Mutation::new);
        return one.list().ofMinSize(1).ofMaxSize(6);
    }

    @Property(tries = 300)
    void mutatedTablesDecodeOrAreRefused(@ForAll("mutations") List<Mutation> mutations) {
        List<Byte> bytes = new ArrayList<>();
        for (byte b : notes().get(mutations.get(0).note())) {
            bytes.add(b);
        }
        for (Mutation m : mutations) {
            int at = bytes.isEmpty() ? 0 : m.position() % bytes.size();
            switch (m.kind()) {
                case 0 -> { if (!bytes.isEmpty()) bytes.set(at, (byte) m.value()); }
                case 1 -> bytes.add(at, (byte) m.value());
                case 2 -> { if (!bytes.isEmpty()) bytes.remove(at); }
                default -> bytes.subList(at, bytes.size()).clear();
            }
        }
        byte[] mutated = new byte[bytes.size()];
        for (int i = 0; i < mutated.length; i++) {
            mutated[i] = bytes.get(i);
        }
        try {
            BatTables t = BatTables.decodeNote(mutated, "mutated");
            t.encodeNote();
            for (BatFunction f : t.functions()) {
                t.translate(f.address(), 7, true);
                t.fallthroughsInTrace(f.address(), f.address(), f.address() + 64);
                t.blocks(f.address());
            }
        } catch (BadInputException e) {
            assertTrue(e.getMessage().startsWith("mutated: offset "), e.getMessage());
        }
    }
}
