package dev.splice.weigh;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.cli.Main;
import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import dev.splice.weigh.campaign.Catalog;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The catalog's run dynamics (issue 12, prediction) against oracles: how the run left its blocks
 * against QEMU's own execution log ({@code -d in_asm,exec,nochain}: every executed block's start and
 * each translated block's last instruction), and which cache level served each load against sweeps
 * whose LRU behaviour is known by construction.
 */
class CatalogDynamicsTest {
    private static final Set<String> CHAINED = Set.of("direct", "call", "branch", "fallthrough");
    private static final Set<String> LOOKUP_INSTRUCTIONS = Set.of("jalr", "jr", "ret", "c.jr", "c.jalr");
    private static final Set<String> LOADS = Set.of("lb", "lbu", "lh", "lhu", "lw", "lwu", "ld", "c.lw", "c.ld",
            "c.lwsp", "c.ldsp", "flw", "fld", "c.fld", "c.fldsp");
    @TempDir Path tmp;

    private Catalog catalog(Path program, String... args) {
        Path out = tmp.resolve(program.getFileName() + "-" + String.join("-", args) + ".json");
        List<String> command = new ArrayList<>(List.of("weigh", "catalog", "-o", out.toString(), "--", program.toString()));
        command.addAll(List.of(args));
        Main.execute(command.toArray(String[]::new));
        assertTrue(Files.isRegularFile(out), out.toString());
        return Catalog.read(out);
    }

    private static Map<String, Long> exits(Catalog c) {
        Map<String, Long> out = new HashMap<>();
        c.dynamics().exits().forEach(e -> out.put(e.kind(), e.count()));
        return out;
    }

    /** Exits of one run by how QEMU's log says they were taken: chained on the page, chained kinds to another page, the rest. */
    private record Oracle(long onPage, long otherPage, long lookupOrExit, long taken, long notTaken) {}

    private Oracle oracle(Path program, String... args) throws IOException {
        Path log = tmp.resolve("exec.log");
        List<String> command = new ArrayList<>(List.of("qemu-riscv64", "-d", "in_asm,exec,nochain", "-D", log.toString(),
                program.toString()));
        command.addAll(List.of(args));
        Tools.run(command, "", 300);
        Map<Long, String> lastMnemonic = new HashMap<>();
        Map<Long, Long> fallthrough = new HashMap<>();
        List<Long> starts = new ArrayList<>();
        long block = -1;
        String last = null;
        long after = 0;
        try (Stream<String> lines = Files.lines(log)) {
            for (String line : (Iterable<String>) lines::iterator) {
                if (line.startsWith("IN:")) {
                    block = -1;
                    last = null;
                } else if (line.startsWith("0x") && line.contains(":  ")) {
                    String[] f = line.trim().split("\\s+");
                    long pc = Long.parseUnsignedLong(f[0].substring(2, f[0].length() - 1), 16);
                    if (block < 0) {
                        block = pc;
                    }
                    last = f[2];
                    after = pc + f[1].length() / 2;
                } else if (line.isEmpty() && block >= 0) {
                    lastMnemonic.put(block, last);
                    fallthrough.put(block, after);
                    block = -1;
                } else if (line.startsWith("Trace ")) {
                    String pc = line.substring(line.indexOf('[') + 1).split("/")[1];
                    starts.add(Long.parseUnsignedLong(pc, 16));
                }
            }
        }
        long onPage = 0;
        long otherPage = 0;
        long other = 0;
        long taken = 0;
        long notTaken = 0;
        for (int i = 1; i < starts.size(); i++) {
            String m = lastMnemonic.get(starts.get(i - 1));
            boolean exit = m.equals("ecall") || m.equals("ebreak") || m.startsWith("csr") || m.equals("fence.i");
            if (exit || LOOKUP_INSTRUCTIONS.contains(m)) {
                other++;
            } else if (starts.get(i - 1) >> 12 == starts.get(i) >> 12) {
                onPage++;
                if (m.matches("(c\\.)?b[a-z]*")) {
                    if (starts.get(i).equals(fallthrough.get(starts.get(i - 1)))) {
                        notTaken++;
                    } else {
                        taken++;
                    }
                }
            } else {
                otherPage++;
            }
        }
        return new Oracle(onPage, otherPage, other, taken, notTaken);
    }

    @Test
    void exitsSplitByPageAsQemusExecutionLogShowsThem() throws IOException {
        for (Path program : List.of(TestPrograms.rv64("page_ring"), TestPrograms.rv64("loops"))) {
            String arg = program.endsWith("loops") ? "100" : "50";
            Map<String, Long> e = exits(catalog(program, arg));
            Oracle o = oracle(program, arg);
            long near = CHAINED.stream().mapToLong(k -> e.getOrDefault(k, 0L)).sum();
            long far = CHAINED.stream().mapToLong(k -> e.getOrDefault(k + "-far", 0L)).sum();
            long rest = Stream.of("indirect", "indirect-call", "return", "exit").mapToLong(k -> e.getOrDefault(k, 0L)).sum();
            assertEquals(o.onPage(), near, program + ": chained exits on the block's page");
            assertEquals(o.otherPage(), far, program + ": chained kinds' exits to another page");
            assertEquals(o.lookupOrExit(), rest, program + ": indirect exits, returns and exits to the main loop");
            Catalog.Dynamics d = catalog(program, arg).dynamics();
            assertEquals(far + rest, d.lookupHits() + d.lookupMisses(), program + ": every exit not chained is a lookup");
            assertEquals(o.taken(), d.branchesTaken(), program + ": chained branch exits taken");
            assertEquals(o.notTaken(), d.branchesNotTaken(), program + ": chained branch exits not taken");
            assertEquals(e.get("branch"), d.branchesTaken() + d.branchesNotTaken());
        }
        // by construction: each round of page_ring leaves 8 blocks for another page with a jump and one with a branch
        Map<String, Long> one = exits(catalog(TestPrograms.rv64("page_ring"), "1"));
        Map<String, Long> five = exits(catalog(TestPrograms.rv64("page_ring"), "5"));
        assertEquals(4 * 8, five.get("direct-far") - one.get("direct-far"));
        assertEquals(4, five.get("branch-far") - one.get("branch-far"));
        assertEquals(0, five.get("branch") - one.get("branch"));
    }

    /**
     * Beyond the host's last known level the model has a level per pointer-chase working set that is
     * larger (this host's CPUID gives an L3 without associativity, so its last known level is L2):
     * loads served there are priced by the chase whose ring they fit, not all as memory loads.
     */
    /** The host's minor page faults of one plain qemu-riscv64 run (GNU time's %R). */
    private static long minorFaults(Path program, String... args) {
        List<String> command = new ArrayList<>(List.of("time", "-f", "faults %R", "qemu-riscv64",
                program.toString()));
        command.addAll(List.of(args));
        Tools.Result r = Tools.run(command, "", 120);
        String[] lines = r.stderr().strip().split("\n");
        String last = lines[lines.length - 1];
        assertTrue(last.startsWith("faults "), r.stderr());
        return Long.parseLong(last.substring("faults ".length()));
    }

    @Test
    void touchedPagesAreTheSweptBuffersPagesAndTheHostsMinorFaults() {
        // line_sweep maps KB KiB afresh and loads every line of it: 4096 KiB touch 1,008 pages more than 64
        Path sweep = TestPrograms.rv64("line_sweep");
        long pages = catalog(sweep, "4096", "1").dynamics().touchedPages()
                - catalog(sweep, "64", "1").dynamics().touchedPages();
        assertEquals((4096 - 64) / 4, pages);
        // the oracle: the host kernel's count of page faults (each first touch of an anonymous page is one)
        long faults = minorFaults(sweep, "4096", "1") - minorFaults(sweep, "64", "1");
        assertEquals(pages, faults, pages * 0.02, "minor faults of plain qemu-riscv64 runs against the touched pages");
    }

    /**
     * The model of the host's branch predictor on coin_branches: a branch on a fair coin (the top bit of
     * a generator) is mispredicted half the time, one on the generator's alternating lowest bit almost
     * never, and the loop's counter branch only at its exit. The oracle is arithmetic: 1,000,000 coin
     * flips are mispredicted 500,000 times give or take a binomial SD of 500, and any predictor without
     * the generator's state does no better. A catalog without the count (an older plugin's) reads as
     * not counting it.
     */
    @Test
    void aFairCoinsBranchIsMispredictedHalfTheTimeAndAnAlternatingOneAlmostNever() throws IOException {
        Path program = TestPrograms.rv64("coin_branches");
        Catalog.Dynamics coin = catalog(program, "coin").dynamics();
        Catalog.Dynamics alternating = catalog(program).dynamics();
        assertEquals(2_000_001, coin.branchesTaken() + coin.branchesNotTaken(), "two per iteration, and the argument check");
        assertEquals(500_000, coin.mispredictedBranches(), 5_000);
        assertTrue(alternating.mispredictedBranches() < 1_000, "alternating: " + alternating.mispredictedBranches());
        Path file = tmp.resolve("coin_branches-coin.json");
        String json = Files.readString(file);
        assertTrue(json.contains("\"mispredicted\""), json.substring(0, Math.min(200, json.length())));
        Path older = tmp.resolve("older.json");
        Files.writeString(older, json.replaceAll(",\\s*\"mispredicted\"\\s*:\\s*\\d+", ""));
        assertFalse(Catalog.read(older).dynamics().countsMispredictions());
        assertTrue(Catalog.read(file).dynamics().countsMispredictions());
    }

    @Test
    void levelsBeyondTheHostsAreThePointerChasesWorkingSets() {
        List<Catalog.CacheLevel> levels = catalog(TestPrograms.rv64("line_sweep"), "4", "1").dynamics().caches();
        List<Catalog.CacheLevel> host = levels.stream().filter(l -> !l.workingSet()).toList();
        assertTrue(host.size() >= 2, "sysfs or sysconf give at least two data cache levels: " + levels);
        assertEquals(host, levels.subList(0, host.size()), "the host's levels come first: " + levels);
        long lastHost = host.get(host.size() - 1).sizeBytes();
        List<Long> expected = ContextTable.load().contexts().stream()
                .filter(c -> c.pattern() == Context.Pattern.POINTER_CHASE && !c.systemOnly())
                .map(c -> c.workingSetBytes().orElse(0)).filter(w -> w > lastHost).distinct().sorted().toList();
        assertEquals(expected, levels.subList(host.size(), levels.size()).stream().map(Catalog.CacheLevel::sizeBytes).toList(),
                levels.toString());
        for (int i = host.size(); i < levels.size(); i++) {
            assertEquals(levels.get(i - 1).level() + 1, levels.get(i).level());
            assertEquals(16, levels.get(i).ways());
        }
    }

    @Test
    void loadsAreServedByTheFirstLevelThatHoldsACyclicSweep() {
        Path sweep = TestPrograms.rv64("line_sweep");
        Catalog probe = catalog(sweep, "4", "1");
        List<Catalog.CacheLevel> levels = probe.dynamics().caches();
        assertTrue(levels.size() >= 2, "sysfs or sysconf give at least two data cache levels: " + levels);
        for (int target = 1; target <= levels.size(); target++) {
            // a sweep twice the size of the level inside: LRU misses every line there, and the next level holds it
            long bytes = 2 * levels.get(target - 1).sizeBytes();
            String kb = Long.toString(bytes / 1024);
            Catalog.Dynamics once = catalog(sweep, kb, "1").dynamics();
            Catalog.Dynamics thrice = catalog(sweep, kb, "3").dynamics();
            long sweeps = 2 * bytes / 64;
            for (int i = 0; i < levels.size(); i++) {
                long loads = thrice.caches().get(i).loads() - once.caches().get(i).loads();
                boolean holds = levels.get(i).sizeBytes() >= bytes && (i == 0 || levels.get(i - 1).sizeBytes() < bytes);
                assertEquals(holds ? sweeps : 0, loads, kb + " KB: loads served by level " + levels.get(i).level());
                // every load is one line on from its instruction's last, but the first of each pass
                long strided = thrice.caches().get(i).strided() - once.caches().get(i).strided();
                assertEquals(holds && i > 0 ? sweeps - 2 : 0, strided, kb + " KB: strided loads at level " + (i + 1));
                assertEquals(0, thrice.caches().get(i).stores() - once.caches().get(i).stores());
            }
            boolean none = levels.stream().allMatch(l -> l.sizeBytes() < bytes);
            assertEquals(none ? sweeps : 0, thrice.loadsFromMemory() - once.loadsFromMemory(), kb + " KB: from memory");
            assertEquals(none ? sweeps - 2 : 0, thrice.stridedFromMemory() - once.stridedFromMemory(), kb + " KB");
        }
        // every load is counted once: the cache model's loads are the executed load instructions
        Catalog c = catalog(sweep, "64", "2");
        long modelled = c.dynamics().loadsFromMemory()
                + c.dynamics().caches().stream().mapToLong(Catalog.CacheLevel::loads).sum();
        long executed = c.entries().stream().filter(x -> LOADS.contains(x.key())).mapToLong(Catalog.Entry::executed).sum();
        assertEquals(executed, modelled);
        assertEquals(0, c.dynamics().storesToMemory()
                + c.dynamics().caches().stream().mapToLong(Catalog.CacheLevel::stores).sum());
    }
}
