package dev.splice.weigh.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.PluginFixtures;
import dev.splice.weigh.campaign.PluginRecords;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.probe.ProbeOptions;
import dev.splice.weigh.probe.ProbeProgram;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The validation pass on a generated probe: for a representative set of contexts the plugin's
 * dynamic counts (an independent observer of what QEMU executed) close exactly.
 */
class ProbeValidationTest {
    static final String REPRESENTATIVE = String.join(",",
            "addi.dependency", "mul.dependency", "div.dependency", // integer
            "ld.hot-load", "sd.hot-store", "c.ld.hot-load", // load/store
            "beq.taken", "beq.not-taken", "c.beqz.taken", "c.bnez.not-taken", // branches
            "jalr.indirect-jump", "jalr.call", "jalr.ret", "c.jr.indirect-jump", "c.jalr.call", // jalr forms
            "sc.d.reservation-pair", "sc.w.reservation-pair", "amoadd.d.amo", // LR/SC, AMO
            "fdiv.d.dependency.nx-set", "fdiv.d.dependency.nx-clear", "fadd.s.dependency.nx-clear", // FP, both flag states
            "csrrs.fflags", "csrrw.frm", "csrrs.time", // CSR
            "fence.rw-rw", "fence.i.fetch", // fences
            "c.addi16sp.stack", "c.sdsp.stack-store");

    private static final ContextTable TABLE = ContextTable.load();
    private static ProbeProgram.Probe probe;
    private static PluginRecords records;
    private static Path elf;

    @BeforeAll
    static void runOnce() throws IOException {
        probe = ProbeProgram.generate(TABLE, TABLE.select(REPRESENTATIVE), new ProbeOptions(11, 1, List.of(1, 4), 2));
        elf = Files.createTempFile("splice-probe", ".elf");
        Files.write(elf, probe.elf());
        elf.toFile().setExecutable(true);
        QemuRunner.Result r = PluginFixtures.run(PluginRecords.Mode.VALIDATION, elf);
        assertEquals(0, r.exitCode());
        records = r.records().orElseThrow();
    }

    @org.junit.jupiter.api.AfterAll
    static void removeProbe() throws IOException {
        Files.deleteIfExists(elf);
    }

    @Test
    void everyPairClosesExactlyAndEveryTargetRanBatchTimes() {
        Closure.RunCheck check = Closure.check(probe, records);
        assertEquals(probe.windows().size(), check.windowsSeen());
        assertTrue(records.footer().clean(), records.footer().toString());
        Set<String> checked = check.pairs().stream().map(Closure.PairCheck::context).collect(Collectors.toSet());
        assertTrue(checked.containsAll(TABLE.select(REPRESENTATIVE).stream().map(Context::key).toList()));
        for (Closure.PairCheck c : check.pairs()) {
            assertTrue(c.closed(), c.context() + ": " + c.mismatch());
            assertEquals(c.batch(), c.targetCount(), c.context());
        }
        assertTrue(check.closed());
    }

    /** Independently of the generator's bookkeeping: the window holds batch executions of the slot instruction. */
    @Test
    void theProbeWindowExecutesTheSlotAsObjdumpSeesIt() {
        Path objdumpElf = elf;
        java.util.Map<Long, long[]> insns = PluginFixtures.objdumpInstructions(objdumpElf);
        for (var pair : probe.pairs()) {
            if (!pair.context().equals("div.dependency")) {
                continue;
            }
            List<Long> divs = PluginFixtures.objdumpAddresses(objdumpElf, "\tdiv\t");
            long encoding = insns.get(divs.get(0))[0];
            PluginRecords.ValidationWindow w = records.validationWindows().get(pair.probeWindow());
            assertEquals(pair.batch(), w.count(encoding, 4));
            assertEquals(0, records.validationWindows().get(pair.baselineWindow()).count(encoding, 4));
        }
    }

    @Test
    void recordsOfAnotherScheduleDoNotClose() {
        ProbeProgram.Probe other =
                ProbeProgram.generate(TABLE, TABLE.select(REPRESENTATIVE), new ProbeOptions(12, 1, List.of(1, 4), 2));
        assertFalse(Closure.check(other, records).closed());
    }

    /** Marker discipline: a footer with a nested start or a stop without a start never closes. */
    @Test
    void anUncleanFooterNeverCloses() throws IOException {
        Path file = Files.createTempFile("splice-records", ".txt");
        try {
            QemuRunner runner = PluginFixtures.runner();
            runner.run(elf, List.of(), PluginRecords.Mode.VALIDATION, java.util.Optional.empty(),
                    new QemuRunner.Streams(java.lang.ProcessBuilder.Redirect.PIPE,
                            java.lang.ProcessBuilder.Redirect.DISCARD, java.lang.ProcessBuilder.Redirect.INHERIT),
                    java.util.Optional.of(file));
            String text = Files.readString(file);
            assertTrue(Closure.check(probe, PluginRecords.parse(text, "kept")).closed(), "the kept copy is the same");
            for (String field : List.of("nested_starts", "inactive_stops", "open_windows", "translation_failures")) {
                String bad = text.replace(field + " 0", field + " 1");
                assertFalse(Closure.check(probe, PluginRecords.parse(bad, "edited")).closed(), field);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            Files.deleteIfExists(file);
        }
    }
}
