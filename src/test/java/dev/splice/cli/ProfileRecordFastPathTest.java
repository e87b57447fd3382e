package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.testing.TestPrograms;
import dev.splice.testing.Tools;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The fast path of `splice profile record`, with picocli's own parse as the oracle. */
class ProfileRecordFastPathTest {
    /** Command lines the fast path takes: picocli must read each to the same values. */
    private static final List<List<String>> TAKEN = List.of(
            List.of("profile", "record", "prog"),
            List.of("profile", "record", "-o", "out.fdata", "prog", "1", "2"),
            List.of("profile", "record", "--output=o.fdata", "--format", "pa", "--input", "in.bin", "-q", "--", "prog",
                    "-x", "--format", "two words"),
            List.of("profile", "record", "--format=fdata", "--debug", "dir/prog", "--debug", "-q"),
            List.of("profile", "record", "--quiet", "--output", "x", "--", "-prog-with-a-dash", "a"),
            List.of("profile", "record", "--input=in", "--", "prog"));

    /** Command lines the fast path leaves to picocli (help, unusual forms, errors picocli reports). */
    private static final List<List<String>> LEFT = List.of(
            List.of("profile", "record", "--help"),
            List.of("profile", "record", "-h", "prog"),
            List.of("profile", "record", "-V"),
            List.of("profile", "record", "-qo", "x", "prog"),
            List.of("profile", "record", "-ox", "prog"),
            List.of("profile", "record", "-o", "x", "-o", "y", "prog"),
            List.of("profile", "record", "-q", "--quiet", "prog"),
            List.of("profile", "record", "--format", "yaml", "prog"),
            List.of("profile", "record", "prog", "--", "a"),
            List.of("profile", "record", "@args", "prog"),
            List.of("profile", "record", "prog", "@args"),
            List.of("profile", "record", "-o", "-q", "prog"),
            List.of("profile", "record", "--progress", "prog"),
            List.of("profile", "record", "-o", "x"),
            List.of("profile", "record", "--"),
            List.of("profile", "record", "--quiet=true", "prog"),
            List.of("profile", "record", "--output="),
            List.of("profile", "record", ""),
            List.of("profile", "convert", "prog"),
            List.of("--debug", "profile", "record", "prog"));

    @Test
    void everyCommandLineItTakesPicocliReadsTheSame() {
        for (List<String> args : TAKEN) {
            String[] a = args.toArray(String[]::new);
            Optional<ProfileRecordFastPath.Invocation> fast = ProfileRecordFastPath.parse(a);
            assertTrue(fast.isPresent(), "taken: " + args);
            CommandLine.ParseResult parsed = Main.forArguments(a).parseArgs(a);
            ProfileRecordCommand picocli = (ProfileRecordCommand) parsed.subcommand().subcommand().commandSpec().userObject();
            ProfileRecordFastPath.Invocation f = fast.get();
            assertEquals(picocli.output, f.output(), "output of " + args);
            assertEquals(ProfileRecordCommand.format(picocli.format), f.format(), "format of " + args);
            assertEquals(picocli.inputBinary, f.input(), "input of " + args);
            assertEquals(picocli.quiet, f.quiet(), "quiet of " + args);
            assertEquals(picocli.binary, f.binary(), "binary of " + args);
            assertEquals(picocli.args, f.args(), "program arguments of " + args);
        }
    }

    @Test
    void everythingElseIsLeftToPicocli() {
        for (List<String> args : LEFT) {
            assertFalse(ProfileRecordFastPath.parse(args.toArray(String[]::new)).isPresent(), "left to picocli: " + args);
        }
    }

    /**
     * The point of the fast path: a recording builds no picocli command line (the JVM lists the
     * classes it loads; three small picocli types are still loaded when Main's and the command's
     * methods are verified).
     */
    @Test
    void aRecordingLoadsNoPicocliClass(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("e.fdata");
        List<String> command = new ArrayList<>(List.of("java", "-verbose:class", "-cp", System.getProperty("java.class.path"),
                "-Dsplice.plugin=" + dev.splice.weigh.PluginFixtures.pluginLibrary(),
                Main.class.getName(), "profile", "record", "-o", out.toString(), "--", TestPrograms.rv64("echo_stdin").toString()));
        Tools.Result r = Tools.run(command, "hi\n", 300);
        assertEquals(3, r.exitCode(), r.stderr());
        assertTrue(r.stdout().contains("dev.splice.profile.ProfileRecorder"), "the class list is on stdout");
        assertFalse(r.stdout().contains("picocli.CommandLine$Model") || r.stdout().contains("picocli.CommandLine "),
                "picocli built a command line");
        assertTrue(r.stderr().contains("taken branches") && r.stderr().contains("(exit status 3)"), r.stderr());
        assertTrue(Files.readString(out).contains("_start"));

        // The same command line with an option only picocli knows goes through picocli (and still works).
        command.add(command.indexOf("-o"), "--no-progress");
        Tools.Result slow = Tools.run(command, "hi\n", 300);
        assertEquals(3, slow.exitCode(), slow.stderr());
        assertTrue(slow.stdout().contains("picocli.CommandLine$Model"), "picocli parsed this one");
    }
}
