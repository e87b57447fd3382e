package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.listing.ListingWriter;
import dev.splice.listing.Region;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplaceTest {
    @TempDir Path tmp;

    static String listing(ElfFile elf, Function f) {
        byte[] section = elf.contents(f.section());
        int at = (int) (f.address() - f.section().address());
        byte[] bytes = Arrays.copyOfRange(section, at, (int) (at + f.size()));
        return new ListingWriter().toText(List.of(Region.function(f.name(), f.address(), bytes)));
    }

    @Test
    void exportingAndReassemblingEveryFunctionGivesTheSameBytes() {
        for (String program : List.of("loops", "exceptions.relocs")) {
            ElfFile elf = ElfFile.read(TestPrograms.rv64(program));
            Map<Long, Integer> perAddress = new HashMap<>();
            for (Function f : elf.functions()) {
                perAddress.merge(f.address(), 1, Integer::sum);
            }
            List<Replacement> all = new ArrayList<>();
            for (Function f : elf.functions()) {
                if (f.size() > 0 && f.section().isExecutable() && perAddress.get(f.address()) == 1) {
                    all.add(new Replacement("0x" + Long.toHexString(f.address()), listing(elf, f), f.name() + ".s"));
                }
            }
            assertTrue(all.size() > 500, program + ": " + all.size());
            assertArrayEquals(elf.toBytes(), Replacer.replace(elf, all), program);
        }
    }

    /** The classify results of loops.c for n = 1000, computed here from the C source's formulas. */
    private static long classifySum(int caseZero) {
        long sum = 0;
        for (int i = 0; i < 1000; i++) {
            int x = (int) (((i * 2654435761L) & 0xffffffffL) >>> 7);
            sum += switch (x % 9) {
                case 0 -> caseZero;
                case 1 -> x * 3;
                case 2 -> x - 7;
                case 3 -> x ^ 0x55;
                case 4 -> x / 3;
                case 5 -> -x;
                case 6 -> x << 2;
                case 7 -> x + 100;
                default -> 1;
            };
        }
        return sum;
    }

    private static long printedClassify(String stdout) {
        Matcher m = Pattern.compile("classify=(-?\\d+)").matcher(stdout);
        assertTrue(m.find(), stdout);
        return Long.parseLong(m.group(1));
    }

    @Test
    void changingAnImmediateChangesTheResultAsExpectedAndTheBuildIdDeterministically() throws Exception {
        Path in = TestPrograms.rv64("loops");
        ElfFile elf = ElfFile.read(in);
        Function classify = elf.function("classify").orElseThrow();
        String text = listing(elf, classify);
        assertTrue(text.contains("c.li a0, 11"), text);
        byte[] twelve = Replacer.replace(elf, List.of(new Replacement("classify", text.replace("c.li a0, 11", "c.li a0, 12"), "c.s")));
        byte[] again = Replacer.replace(elf, List.of(new Replacement("classify", text.replace("c.li a0, 11", "c.li a0, 12"), "c.s")));
        byte[] thirteen = Replacer.replace(elf, List.of(new Replacement("classify", text.replace("c.li a0, 11", "c.li a0, 13"), "c.s")));
        assertArrayEquals(twelve, again, "same edit, same bytes");

        Tools.Result before = PatchFixtures.qemu(in);
        Path out = PatchFixtures.write(tmp, "loops.12", twelve);
        Tools.Result after = PatchFixtures.qemu(out);
        assertEquals(classifySum(11), printedClassify(before.stdout()), "the oracle reproduces the original");
        assertEquals(classifySum(12), printedClassify(after.stdout()));
        assertNotEquals(classifySum(11), classifySum(12));
        assertEquals((int) (classifySum(12) & 0x3f), after.exitCode());

        byte[] id = elf.buildId().orElseThrow();
        byte[] id12 = ElfFile.parse(twelve, "12").buildId().orElseThrow();
        byte[] id13 = ElfFile.parse(thirteen, "13").buildId().orElseThrow();
        assertFalse(Arrays.equals(id, id12));
        assertFalse(Arrays.equals(id12, id13));
        int differing = 0;
        byte[] original = elf.toBytes();
        for (int i = 0; i < original.length; i++) {
            differing += original[i] != twelve[i] ? 1 : 0;
        }
        assertTrue(differing >= 1 && differing <= 1 + id.length, "only the instruction and the build-id change: " + differing);
        Tools.Result readelf = Tools.run("readelf", "-n", out.toString()).checked("readelf -n");
        assertTrue(readelf.stdout().contains(java.util.HexFormat.of().formatHex(id12)), readelf.stdout());
    }

    @Test
    void wrongLengthIsRefusedAndPointsToInsertion() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops"));
        String text = listing(elf, elf.function("classify").orElseThrow());
        String longer = text.replace("c.li a0, 11", "addi a0, zero, 11");
        PatchException e = assertThrows(PatchException.class,
                () -> Rewrite.of(elf).replace(new Replacement("classify", longer, "long.s")).run());
        assertTrue(e.getMessage().contains("94 bytes") && e.getMessage().contains("--insert"), e.getMessage());
        assertEquals(PatchException.Reason.LENGTH_CHANGED, e.reason());
    }

    @Test
    void targetMismatchIsRefused() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops"));
        String text = listing(elf, elf.function("classify").orElseThrow()).replace(".target rv64gc", ".target rv64gc_zba");
        PatchException e = assertThrows(PatchException.class,
                () -> Rewrite.of(elf).replace(new Replacement("classify", text, "zba.s")).run());
        assertTrue(e.getMessage().contains("does not match the binary") && e.getMessage().contains("zba"), e.getMessage());
        assertEquals(PatchException.Reason.TARGET_MISMATCH, e.reason());
    }

    @Test
    void unknownAndWrongAddressListingsAreRefused() {
        ElfFile elf = ElfFile.read(TestPrograms.rv64("loops"));
        String text = listing(elf, elf.function("classify").orElseThrow());
        PatchException unknown = assertThrows(PatchException.class, () -> Replacer.replace(elf,
                List.of(new Replacement("no_such_function", text, "x.s"))));
        assertTrue(unknown.getMessage().contains("no function"));
        assertEquals(PatchException.Reason.NO_SUCH_FUNCTION, unknown.reason());
        PatchException elsewhere = assertThrows(PatchException.class, () -> Replacer.replace(elf,
                List.of(new Replacement("fib", text, "x.s"))));
        assertTrue(elsewhere.getMessage().contains("starts at"));
        assertEquals(PatchException.Reason.BAD_LISTING, elsewhere.reason());
    }
}
