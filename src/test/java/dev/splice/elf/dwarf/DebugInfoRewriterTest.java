package dev.splice.elf.dwarf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.testing.TestPrograms;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The DWARF rewriter on its own: a map that moves nothing changes nothing, and damaged sections
 * are refused with a {@link BadInputException} or an {@link UnsupportedDwarfException}, never
 * another exception (every count and length read from the file is bounded).
 */
class DebugInfoRewriterTest {
    /** Moves {@code main} by a fixed distance, as one block. */
    private record Shift(long from, long to, long by) implements AddressMap {
        @Override
        public long start(long address) {
            return address >= from && address < to ? address + by : address;
        }

        @Override
        public long end(long address) {
            return address > from && address <= to ? address + by : address;
        }

        @Override
        public void ranges(long a, long b, RangeSink out) {
            long at = a;
            while (at < b) {
                long next = Math.min(b, nextBoundary(at));
                out.range(start(at), end(next));
                at = next;
            }
        }

        @Override
        public boolean moves(long a, long b) {
            return a < to && b > from && a < b;
        }

        @Override
        public long nextBoundary(long address) {
            return address < from ? from : address < to ? to : Long.MAX_VALUE;
        }
    }

    private static Map<String, byte[]> sections(Path p) {
        ElfFile elf = ElfFile.read(p);
        Map<String, byte[]> out = new HashMap<>();
        for (String name : DebugInfoRewriter.SECTIONS) {
            elf.section(name).ifPresent(s -> out.put(name, elf.contents(s)));
        }
        return out;
    }

    private static Path program(String name) {
        Path p = TestPrograms.dir().resolve("rv64-g").resolve(name);
        assertTrue(Files.isRegularFile(p), p + " is missing: run 'make programs'");
        return p;
    }

    @Test
    void aMapThatMovesNothingChangesNothing() {
        Map<String, byte[]> s = sections(program("exceptions.dwarf5"));
        assertEquals(Map.of(), DebugInfoRewriter.rewrite(s::get, new Shift(0, 0, 0)));
    }

    @Test
    void damagedSectionsAreRefusedCleanly() {
        for (String name : new String[] {"loops.dwarf5", "loops.dwarf4"}) {
            Path p = program(name);
            Function main = ElfFile.read(p).function("main").orElseThrow();
            Shift shift = new Shift(main.address(), main.endAddress(), 0x400000);
            Map<String, byte[]> good = sections(p);
            assertTrue(DebugInfoRewriter.rewrite(good::get, shift).containsKey(".debug_line"), name);
            Random random = new Random(17);
            for (String section : good.keySet()) {
                byte[] bytes = good.get(section);
                for (int trial = 0; trial < 60; trial++) {
                    byte[] damaged = trial < 20 ? Arrays.copyOf(bytes, random.nextInt(bytes.length + 1)) : bytes.clone();
                    for (int flips = trial < 20 ? 0 : 1 + random.nextInt(4); flips > 0 && damaged.length > 0; flips--) {
                        damaged[random.nextInt(damaged.length)] ^= (byte) (1 << random.nextInt(8));
                    }
                    Map<String, byte[]> s = new HashMap<>(good);
                    s.put(section, damaged);
                    try {
                        DebugInfoRewriter.rewrite(s::get, shift);
                    } catch (BadInputException | UnsupportedDwarfException expected) {
                        // refused with the section and offset
                    } catch (RuntimeException e) {
                        fail(name + " " + section + " trial " + trial + ": " + e, e);
                    }
                }
            }
        }
    }
}
