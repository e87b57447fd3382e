package dev.splice;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.splice.isa.ControlFlow;
import dev.splice.profile.ProfileTranslation.InputFormat;
import dev.splice.profile.ProfileTranslation.OutputFormat;
import dev.splice.testing.TestPrograms;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfilesTest {
    @TempDir Path dir;

    /** hot_loop's back edge, taken 7 times: one fdata line in the function's offsets, from a file and from a reader. */
    @Test
    void aOneLinePreAggregatedProfile() throws IOException {
        Path program = TestPrograms.rv64("loops.relocs");
        Function hot = Binary.open(program).function("hot_loop").orElseThrow();
        Instruction backEdge = hot.instructions().stream()
                .filter(i -> i.controlFlow() == ControlFlow.BRANCH)
                .filter(i -> target(i) < i.address())
                .findFirst().orElseThrow();
        long to = target(backEdge);
        String line = String.format("B %x %x 7 0%n", backEdge.address(), to);
        String expected = String.format("1 hot_loop %x 1 hot_loop %x 0 7%n", backEdge.address() - hot.address(),
                to - hot.address());

        Path profile = dir.resolve("one.pa");
        Files.writeString(profile, line);
        Path fdata = dir.resolve("one.fdata");
        Profiles.Summary summary = Profiles.translate(program, profile, InputFormat.PRE_AGGREGATED, fdata,
                OutputFormat.FDATA);
        assertEquals(expected, Files.readString(fdata));
        assertEquals(new Profiles.Summary(1, 0, 1, 0), summary);

        StringWriter out = new StringWriter();
        assertEquals(summary, Profiles.translate(program, new StringReader(line), InputFormat.PRE_AGGREGATED, out,
                OutputFormat.FDATA));
        assertEquals(expected, out.toString());
    }

    /** A branch's target: its last operand. */
    private static long target(Instruction branch) {
        return ((Operand.Target) branch.operands().get(branch.operands().size() - 1)).address();
    }
}
