package dev.splice.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The short fixed-seed fuzzing pass of {@code make test} (issue 15): every target for a fixed number
 * of inputs (about 30 s in all on a quiet machine); any finding (an exception that is not a refusal,
 * CPU over 1 s per MB, allocation beyond the target's multiple of the input, a hang) fails the
 * build, with the saved input named. Counted, not timed, so every machine runs the same inputs.
 * {@code bench/fuzz.sh SECONDS} runs the same targets for as long as asked.
 */
class FuzzPassTest {
    /** Inputs per target: about 1 to 3 s each (the model and pairs targets read a whole campaign per input). */
    static final Map<String, Long> PASS_INPUTS = Map.ofEntries(Map.entry("elf", 20_000L), Map.entry("disasm", 4_000L),
            Map.entry("asm", 1_000L), Map.entry("bat-note", 50_000L), Map.entry("bolted", 2_000L),
            Map.entry("profile-pa", 1_500L), Map.entry("profile-perf-script", 2_000L), Map.entry("fragment", 2_000L),
            Map.entry("patch", 3_000L), Map.entry("pairs", 300L), Map.entry("model", 100L), Map.entry("weights", 1_000L),
            Map.entry("catalog", 600L), Map.entry("plugin-records", 600L));

    @Test
    void noFindingsOnAShortFixedSeedPass() throws IOException {
        List<FuzzTarget> targets = Targets.all();
        PrintWriter out = new PrintWriter(System.out, true);
        Fuzzer.Report report = new Fuzzer(Path.of("target/fuzz-findings/pass")).runCounted(targets, 15, PASS_INPUTS, out);
        assertEquals(targets.size(), report.counts().size());
        for (Fuzzer.Counts c : report.counts()) {
            assertEquals((long) PASS_INPUTS.get(c.target()), c.inputs(), c.target());
        }
        assertTrue(report.findings().isEmpty(), report.findings().stream().map(Fuzzer.Finding::toString)
                .collect(Collectors.joining("\n")));
    }

    /**
     * The pass above is bounded by time, so how far each target gets varies with the machine. This
     * replays, bounded by count, the first 1,300 inputs of the BOLTed-binary target with the pass's
     * seed, among which a forged BAT block table once gave a negative block index to the YAML writer
     * (an IndexOutOfBoundsException in {@code YamlProfile.write}).
     */
    @Test
    void theBoltedTargetsFirstInputsAreAllRefusedOrTranslated() throws IOException {
        FuzzTarget bolted = Targets.boltedHugePagesTarget();
        Fuzzer.Report report = new Fuzzer(Path.of("target/fuzz-findings/bolted")).run(List.of(bolted), 15, 600_000, 1_300, null);
        assertEquals(1_300, report.counts().get(0).inputs());
        assertTrue(report.findings().isEmpty(), report.findings().stream().map(Fuzzer.Finding::toString)
                .collect(Collectors.joining("\n")));
    }
}
