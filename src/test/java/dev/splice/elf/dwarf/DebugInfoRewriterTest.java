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
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import dev.splice.testing.Tools;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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

    /** Several disjoint {@link Shift}s, in address order. */
    private record Shifts(List<Shift> shifts) implements AddressMap {
        private Shift at(long address) {
            return shifts.stream().filter(s -> address >= s.from && address < s.to).findFirst().orElse(new Shift(0, 0, 0));
        }

        @Override
        public long start(long address) {
            return at(address).start(address);
        }

        @Override
        public long end(long address) {
            return at(address - 1).end(address);
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
            return shifts.stream().anyMatch(s -> s.moves(a, b));
        }

        @Override
        public long nextBoundary(long address) {
            return shifts.stream().mapToLong(s -> s.nextBoundary(address)).min().orElse(Long.MAX_VALUE);
        }
    }

    @TempDir
    Path tmp;

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
        for (String name : new String[] {"loops.dwarf5", "loops.dwarf4", "loops.clang", "loops.dframe"}) {
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

    /** The location list entries with a DW_OP_addr operand in llvm-dwarfdump-22's reading of the DIEs: {from, to, operand}. */
    private static List<long[]> listOperands(Path binary) {
        String dump = Tools.run("llvm-dwarfdump-22", "--debug-info", binary.toString()).stdout();
        Matcher m = Pattern.compile("\\[0x([0-9a-f]+), 0x([0-9a-f]+)\\): DW_OP_addr 0x([0-9a-f]+)").matcher(dump);
        List<long[]> out = new java.util.ArrayList<>();
        while (m.find()) {
            out.add(new long[] {Long.parseUnsignedLong(m.group(1), 16), Long.parseUnsignedLong(m.group(2), 16),
                    Long.parseUnsignedLong(m.group(3), 16)});
        }
        return out;
    }

    /**
     * gcc's location lists of exceptions.cpp hold DW_OP_addr operands (of .rodata objects) over
     * ranges of code: the objects "move" (by the map), and once the code of one such range too. The
     * rewritten sections, put into a copy with objcopy, read back by llvm-dwarfdump-22: every
     * operand names the new place, in a list kept in place and in one written anew.
     */
    @ParameterizedTest
    @ValueSource(strings = {"exceptions.dwarf5", "exceptions.dwarf4"})
    void addressOperandsInsideLocationListsFollowTheMap(String name) throws java.io.IOException {
        Path in = program(name);
        List<long[]> before = listOperands(in);
        assertTrue(before.size() >= 4, name + ": " + before.size() + " location list entries with DW_OP_addr");
        long lowest = before.stream().mapToLong(e -> e[2]).min().orElseThrow();
        long highest = before.stream().mapToLong(e -> e[2]).max().orElseThrow();
        ElfFile elf = ElfFile.read(in);
        Function code = elf.functionContaining(before.get(0)[0]).orElseThrow();
        Shift data = new Shift(lowest, highest + 8, 0x100000);
        Shift moved = new Shift(code.address(), code.endAddress(), 0x400000);
        AddressMap map = code.address() < lowest ? new Shifts(List.of(moved, data)) : new Shifts(List.of(data, moved));
        Map<String, byte[]> changed = DebugInfoRewriter.rewrite(sections(in)::get, map);
        List<String> objcopy = new java.util.ArrayList<>(List.of(Tools.require("riscv64-linux-gnu-objcopy")));
        for (Map.Entry<String, byte[]> e : changed.entrySet()) {
            Path bytes = tmp.resolve(e.getKey().substring(1));
            Files.write(bytes, e.getValue());
            objcopy.addAll(List.of("--update-section", e.getKey() + "=" + bytes));
        }
        Path out = tmp.resolve(name + ".out");
        objcopy.addAll(List.of(in.toString(), out.toString()));
        Tools.Result r = Tools.run(objcopy, "", 120);
        assertEquals(0, r.exitCode(), r.stderr());
        List<long[]> after = listOperands(out);
        assertEquals(before.size(), after.size(), name);
        int inMoved = 0;
        for (int i = 0; i < before.size(); i++) {
            long[] b = before.get(i);
            long[] a = after.get(i);
            inMoved += moved.moves(b[0], b[1]) ? 1 : 0;
            assertEquals(List.of(map.start(b[0]), map.end(b[1]), b[2] + 0x100000), List.of(a[0], a[1], a[2]),
                    name + ": entry " + i + " [0x" + Long.toHexString(b[0]) + ", 0x" + Long.toHexString(b[1]) + "): DW_OP_addr 0x"
                    + Long.toHexString(b[2]));
        }
        assertTrue(inMoved >= 1 && inMoved < before.size(), name + ": " + inMoved + " entries in the moved function");
    }
}
