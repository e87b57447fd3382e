package dev.splice.elf;

import dev.splice.testing.TestPrograms;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

/**
 * Random byte mutations of real ELF files: either the file still parses (and everything can be
 * read from it) or it is refused with an ElfFormatException naming the file and an offset.
 * Mutations favour the places where structure lives: the ELF header and the header tables.
 */
class ElfMutationProperties {
    private static final List<byte[]> FILES = load();

    private static List<byte[]> load() {
        try {
            return List.of(Files.readAllBytes(TestPrograms.rv64("entries.relocs")),
                    Files.readAllBytes(TestPrograms.x86_64("loops")),
                    Files.readAllBytes(TestPrograms.rv64("loops")),
                    Files.readAllBytes(Path.of("/bin/ls")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** One mutation: which file, and a list of (position selector, byte) pairs. */
    record Mutation(int file, List<Tuple.Tuple3<Integer, Integer, Byte>> edits) {}

    @Provide
    Arbitrary<Mutation> mutations() {
        Arbitrary<Tuple.Tuple3<Integer, Integer, Byte>> edit = Combinators.combine(
                Arbitraries.integers().between(0, 3),            // region: header, program headers, section headers, anywhere
                Arbitraries.integers().between(0, Integer.MAX_VALUE),
                Arbitraries.bytes()).as(Tuple::of);
        return Combinators.combine(Arbitraries.integers().between(0, FILES.size() - 1),
                edit.list().ofMinSize(1).ofMaxSize(6)).as(Mutation::new);
    }

    @Property(tries = 600)
    void mutatedFilesParseOrAreRefusedWithAnOffset(@ForAll("mutations") Mutation m) {
        byte[] bytes = FILES.get(m.file()).clone();
        ElfFile original = ElfFile.parse(bytes, "original");
        long shoff = original.header().shoff();
        long shsize = (long) original.sections().size() * Section.HEADER_SIZE;
        long phoff = original.header().phoff();
        long phsize = (long) original.segments().size() * Segment.HEADER_SIZE;
        for (Tuple.Tuple3<Integer, Integer, Byte> e : m.edits()) {
            long at = switch (e.get1()) {
                case 0 -> e.get2() % 64;
                case 1 -> phoff + e.get2() % phsize;
                case 2 -> shoff + e.get2() % shsize;
                default -> e.get2() % bytes.length;
            };
            bytes[(int) at] = e.get3();
        }
        Exercise.run(bytes, "mutant" + m.file());
    }
}
