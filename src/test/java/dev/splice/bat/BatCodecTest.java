package dev.splice.bat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.base.ByteWriter;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Symbol;
import dev.splice.testing.BoltOutputs;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The codec against the tables llvm-bolt-22 --enable-bat writes. */
class BatCodecTest {
    static Stream<BoltOutputs.Output> outputs() {
        return BoltOutputs.all().stream();
    }

    static byte[] note(ElfFile elf) {
        return elf.contents(elf.section(BatTables.SECTION_NAME).orElseThrow());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("outputs")
    void encodeOfDecodeIsBoltsBytes(BoltOutputs.Output o) {
        ElfFile elf = ElfFile.read(o.output());
        assertTrue(BatTables.enabledFor(elf));
        BatTables tables = BatTables.read(elf);
        assertFalse(tables.functions().isEmpty());
        assertArrayEquals(note(elf), tables.encodeNote());
        // The note header as llvm-readelf-22 reads it: owner BOLT, the descriptor size.
        String notes = dev.splice.testing.Tools.run("llvm-readelf-22", "-n", o.output().toString()).checked("llvm-readelf-22").stdout();
        assertTrue(notes.contains(String.format("BOLT                 0x%08x", tables.encodeDescriptor().length)), notes);
    }

    /** The writer, fed with the maps, hashes, block counts and entry points, writes BOLT's bytes. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("outputs")
    void writerReproducesBoltsBytes(BoltOutputs.Output o) {
        ElfFile elf = ElfFile.read(o.output());
        BatTables tables = BatTables.read(elf);
        BatWriter w = new BatWriter();
        // Functions in a different order than the table's: the writer sorts them.
        List<BatFunction> functions = new java.util.ArrayList<>(tables.functions());
        java.util.Collections.reverse(functions);
        for (BatFunction f : functions) {
            BatWriter.Function wf = w.function(f.address(), f.hash(), f.blockCount());
            tables.blocks(f.address()).byOffset().values().forEach(b -> wf.block(b.inputOffset(), b.index(), b.hash()));
            for (BatMap.Entry e : f.map().entries()) {
                wf.entry(e.outputOffset(), e.inputOffset(), e.branch());
            }
            f.secondaryEntryPoints().forEach(wf::secondaryEntryPoint);
            for (BatColdFragment c : tables.coldFragments()) {
                if (c.parentAddress() == f.address()) {
                    BatWriter.Fragment wc = wf.coldFragment(c.address());
                    for (BatMap.Entry e : c.map().entries()) {
                        wc.entry(e.outputOffset(), e.inputOffset(), e.branch());
                    }
                }
            }
        }
        assertArrayEquals(note(elf), w.encodeNote());
    }

    @Test
    void splitOutputsHaveColdFragmentsWithParents() {
        for (BoltOutputs.Output o : BoltOutputs.all()) {
            if (!o.options().contains("--split-functions")) {
                continue;
            }
            ElfFile elf = ElfFile.read(o.output());
            BatTables tables = BatTables.read(elf);
            assertFalse(tables.coldFragments().isEmpty(), o.id());
            for (BatColdFragment c : tables.coldFragments()) {
                assertEquals(c.parentAddress(), tables.fetchParentAddress(c.address()));
                assertEquals(tables.functions().get(c.parentIndex()).address(), c.parentAddress());
                // The fragment lies in a cold text section, its parent in .text.
                assertTrue(elf.sectionContaining(c.address()).orElseThrow().name().startsWith(".text."), o.id());
            }
            assertEquals(0, tables.fetchParentAddress(tables.functions().get(0).address()));
        }
    }

    /** BOLT maps blocks it deleted to the end of the function's output. */
    @Test
    void deletedBlocksMapToTheEndOfTheFunction() {
        BoltOutputs.Output o = BoltOutputs.get("rv64-loops-reverse-hfsort");
        ElfFile elf = ElfFile.read(o.output());
        BatTables tables = BatTables.read(elf);
        int deleted = 0;
        for (Symbol s : elf.symbols()) {
            if (!s.isFunction() || !tables.isBatFunction(s.value()) || s.size() == 0) {
                continue;
            }
            BatMap map = tables.map(s.value()).orElseThrow();
            for (int i = 0; i < map.size(); i++) {
                if (map.outputOffset(i) == s.size() && !map.isBranch(i)) {
                    deleted++;
                    assertTrue(tables.blocks(s.value()).isInputBlock(map.inputOffset(i)));
                }
            }
        }
        assertTrue(deleted > 0, "no deleted blocks found (llvm-bolt reported UCE removals)");
    }

    /** The second global entry label of the assembly programs is a secondary entry point. */
    @Test
    void secondaryEntryPointsMatchTheInputSymbols() {
        for (String id : List.of("rv64-entries-reverse-icf", "x86_64-entries-splitall-reverse-icf")) {
            BoltOutputs.Output o = BoltOutputs.get(id);
            ElfFile input = ElfFile.read(o.input());
            long inputOffset = input.symbol("accumulate_from").orElseThrow().value() - input.symbol("accumulate").orElseThrow().value();
            ElfFile output = ElfFile.read(o.output());
            BatTables tables = BatTables.read(output);
            long accumulate = output.symbol("accumulate").orElseThrow().value();
            assertEquals(List.of(inputOffset), tables.secondaryEntryPoints(accumulate), id);
            assertEquals(1, tables.secondaryEntryPointId(accumulate, inputOffset));
            assertEquals(0, tables.secondaryEntryPointId(accumulate, inputOffset + 1));
            long symbol = output.symbol("accumulate_from").orElseThrow().value();
            BatTables.SymbolTarget target = tables.translateSymbol(symbol, 0).orElseThrow();
            assertEquals(new BatTables.SymbolTarget(accumulate, inputOffset, 1), target, id);
            assertTrue(tables.blockCount(accumulate) >= 3);
            assertTrue(tables.functionHash(accumulate) != 0);
        }
    }

    @Test
    void translateFollowsBoltsRules() {
        BatWriter w = new BatWriter();
        BatWriter.Function f = w.function(0x1000, 7, 3).block(0, 0, 11).block(0x10, 1, 12).block(0x20, 2, 13);
        f.entry(0, 0x20, false).entry(6, 0x28, true).entry(8, 0, false).entry(0x18, 0x10, false);
        f.coldFragment(0x9000).entry(0, 0x30, false).entry(4, 0x36, true);
        BatTables tables = BatTables.decodeNote(w.encodeNote(), "test");
        assertEquals(w.build(), tables);
        assertEquals(0x20 + 4, tables.translate(0x1000, 4, false));
        assertEquals(0x20, tables.translate(0x1000, 4, true));
        assertEquals(0x28, tables.translate(0x1000, 7, true)); // at/after a branch entry: the branch itself
        assertEquals(0x10 + 0x30, tables.translate(0x1000, 0x48, false));
        assertEquals(0x36, tables.translate(0x9000, 5, true));
        assertEquals(0x123, tables.translate(0x5000, 0x123, true)); // no map: unchanged
        assertEquals(0x1000, tables.fetchParentAddress(0x9000));
        // Executing from the first block to the last crosses 0x20 -> 0 -> 0x10 (input offsets).
        List<long[]> fts = tables.fallthroughsInTrace(0x1000, 0x1002, 0x1019);
        assertEquals(List.of("20->0", "0->10"), fts.stream().map(p -> Long.toHexString(p[0]) + "->" + Long.toHexString(p[1])).toList());
        assertTrue(tables.fallthroughsInTrace(0x1000, 0x1019, 0x1002).isEmpty());
        assertEquals(null, tables.fallthroughsInTrace(0x2000, 1, 2));
        assertEquals(2, tables.blocks(0x1000).byOffset().get(0x20L).index());
        assertEquals(13, tables.blocks(0x1000).byOffset().get(0x20L).hash());
        assertEquals(7, tables.functionHash(0x1000));
        assertEquals(3, tables.blockCount(0x1000));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("outputs")
    void everyTruncationIsRefusedWithAnOffset(BoltOutputs.Output o) {
        byte[] note = note(ElfFile.read(o.output()));
        int step = Math.max(1, note.length / 400);
        for (int length = 0; length < note.length - 4; length += step) {
            byte[] cut = java.util.Arrays.copyOf(note, length);
            BadInputException e = assertThrows(BadInputException.class, () -> BatTables.decodeNote(cut, "cut"));
            assertTrue(e.getMessage().startsWith("cut: offset "), e.getMessage());
        }
    }

    @Test
    void hugeCountsAreRefusedWithoutAllocating() {
        ByteWriter w = new ByteWriter();
        w.uleb(Long.MAX_VALUE); // hot function count
        BadInputException e = assertThrows(BadInputException.class, () -> BatTables.decodeDescriptor(w.toByteArray(), "huge"));
        assertTrue(e.getMessage().contains("offset 0") && e.getMessage().contains("hot function count"), e.getMessage());

        ByteWriter entries = new ByteWriter();
        entries.uleb(1);
        entries.uleb(0x1000);
        entries.u64(0);
        entries.uleb(1);
        entries.uleb(0);
        entries.uleb(0xffffffffL); // entry count
        e = assertThrows(BadInputException.class, () -> BatTables.decodeDescriptor(entries.toByteArray(), "huge"));
        assertTrue(e.getMessage().contains("offset 13") && e.getMessage().contains("entry count"), e.getMessage());
    }

    @Test
    void coldIndexOutOfRangeIsRefused() {
        BatWriter w = new BatWriter();
        w.function(0x1000, 1, 1).block(0, 0, 5).entry(0, 0, false).coldFragment(0x2000).entry(0, 0x10, false);
        byte[] d = w.encodeDescriptor();
        // The cold table: count, address delta, hot index delta (last fields before skew): bump the index.
        BatTables ok = BatTables.decodeDescriptor(d, "ok");
        assertEquals(1, ok.coldFragments().size());
        ByteWriter bad = new ByteWriter();
        bad.bytes(java.util.Arrays.copyOf(d, d.length));
        byte[] bytes = bad.toByteArray();
        int coldStart = BatTables.decodeDescriptor(java.util.Arrays.copyOf(d, d.length), "x") == null ? 0 : findColdIndex(bytes);
        bytes[coldStart] = 5;
        BadInputException e = assertThrows(BadInputException.class, () -> BatTables.decodeDescriptor(bytes, "cold"));
        assertTrue(e.getMessage().contains("hot function index 5 of 1"), e.getMessage());
    }

    /** The byte holding the first cold fragment's hot index delta in a one-function table. */
    private static int findColdIndex(byte[] d) {
        // Re-encode the hot part alone to find where the cold table starts.
        BatTables t = BatTables.decodeDescriptor(d, "x");
        BatTables hotOnly = new BatTables(t.functions(), List.of());
        int coldTable = hotOnly.encodeDescriptor().length - 1; // its cold count byte
        int i = coldTable + 1;
        while ((d[i] & 0x80) != 0) {
            i++; // address delta
        }
        return i + 1;
    }
}
