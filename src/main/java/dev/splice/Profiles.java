package dev.splice;

import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.profile.ProfileRecorder;
import dev.splice.profile.ProfileTranslation;
import dev.splice.profile.ProfileTranslation.InputFormat;
import dev.splice.profile.ProfileTranslation.OutputFormat;
import dev.splice.profile.TraceRecords;
import dev.splice.profile.TranslatedProfile;
import dev.splice.weigh.QemuPlugin;
import dev.splice.weigh.QemuRunner;
import dev.splice.weigh.Sysroot;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Profile translation as perf2bolt does it: a profile collected on a binary BOLT rewrote (one with
 * {@code .note.bolt_bat}) is translated to the input binary's functions and offsets; a profile of a
 * binary BOLT has not rewritten is written in its own coordinates, each function through its CFG.
 * The output is what {@code perf2bolt-22} writes (see docs/bat.md). And recording: {@link #record}
 * runs a RISC-V program under QEMU and writes its exact branch profile the same way
 * (docs/profile.md).
 *
 * <pre>{@code
 * // A pre-aggregated profile: one branch from 0x10720 to 0x1070c, taken 7 times, never mispredicted.
 * Files.writeString(Path.of("prog.pa"), "B 10720 1070c 7 0\n");
 * Profiles.translate(Path.of("prog"), Path.of("prog.pa"), InputFormat.PRE_AGGREGATED,
 *         Path.of("prog.fdata"), OutputFormat.FDATA);
 * // prog.fdata: "1 hot_loop 1e 1 hot_loop a 0 7"
 * }</pre>
 */
public final class Profiles {
    private Profiles() {}

    /**
     * What a translation read and wrote.
     *
     * @param lines the profile lines read
     * @param badLines malformed lines skipped (0: a malformed line fails the translation)
     * @param branchLines branch lines written
     * @param sampleLines sample lines written
     */
    public record Summary(long lines, long badLines, int branchLines, int sampleLines) {}

    /**
     * Translates a profile file to a BOLT profile file, written atomically.
     *
     * @param binary the binary the profile was recorded on (a BOLTed binary, or one BOLT has not
     *     rewritten, whose profile stays in its own coordinates)
     * @param profile the profile file
     * @param input the profile's format
     * @param output the file to write
     * @param format the format to write
     * @return what was read and written
     * @throws BadInputException when a file cannot be read or a line is malformed (with its
     *     line:column)
     */
    public static Summary translate(Path binary, Path profile, InputFormat input, Path output, OutputFormat format) {
        TranslatedProfile t = ProfileTranslation.translate(binary, profile, input, ProfileTranslation.Options.DEFAULTS);
        t.write(output, format);
        return summary(t);
    }

    /**
     * Translates a profile read from a reader and writes the BOLT profile to a writer.
     *
     * @param binary the binary the profile was recorded on
     * @param profile the profile text
     * @param input the profile's format
     * @param output where the translated profile goes (flushed, not closed)
     * @param format the format to write
     * @return what was read and written
     * @throws IOException when reading or writing fails
     * @throws BadInputException when a line is malformed (with its line:column)
     */
    public static Summary translate(Path binary, Reader profile, InputFormat input, Writer output, OutputFormat format)
            throws IOException {
        TranslatedProfile t = ProfileTranslation.translate(ElfFile.read(binary), profile, input,
                ProfileTranslation.Options.DEFAULTS);
        t.write(output, format);
        output.flush();
        return summary(t);
    }

    /**
     * Records an exact profile of one run ({@code splice profile record}): runs {@code binary} under
     * {@code qemu-riscv64} with the Splice plugin in trace mode, then writes every taken branch and
     * fall-through range of all its threads as fdata in the binary's coordinates (the input's, for
     * a binary with BAT), as perf2bolt-22 aggregates the same trace, or as perf2bolt's
     * pre-aggregated records (see docs/profile.md).
     *
     * <pre>{@code
     * ProfileRecorder.Result r = Profiles.record(Path.of("prog"), List.of("1000"),
     *         QemuRunner.Streams.inherited(), Path.of("prog.fdata"), ProfileRecorder.Format.FDATA, null);
     * int status = r.exitCode(); // the program's
     * }</pre>
     *
     * @param binary the RISC-V64 executable
     * @param args its arguments
     * @param streams its standard streams
     * @param output the profile file, written atomically (not written when the program dies of a
     *     signal: QEMU 7.2 then runs no plugin exit hook)
     * @param format fdata or pre-aggregated records
     * @param inputBinary for a BOLTed binary, the binary BOLT optimized (as {@code bat translate
     *     --input}), or null
     * @return the program's exit status, the trace and the lines written
     * @throws BadInputException when QEMU or the plugin is missing, the run ends without records for
     *     another reason than a signal, the trace is not exact, or the profile cannot be translated
     */
    public static ProfileRecorder.Result record(Path binary, List<String> args, QemuRunner.Streams streams, Path output,
                                                ProfileRecorder.Format format, Path inputBinary) {
        QemuPlugin plugin = QemuPlugin.locate();
        // The JVM's part (reading the binary, loading the translation) runs while the guest does.
        java.util.concurrent.CompletableFuture<ElfFile> prepared = java.util.concurrent.CompletableFuture.supplyAsync(
                () -> ProfileRecorder.prepare(binary, format, inputBinary));
        QemuRunner.Recorded<TraceRecords> run = new QemuRunner(plugin).runRecording(binary, args,
                TraceRecords.MODE, Optional.empty(), streams, Sysroot.choose(Optional.empty()), TraceRecords::read);
        ElfFile elf;
        try {
            elf = prepared.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException r) {
                throw r;
            }
            throw e;
        }
        return ProfileRecorder.write(elf, binary, run.exitCode(), run.records(), output, format, inputBinary);
    }

    private static Summary summary(TranslatedProfile t) {
        return new Summary(t.lines(), t.badLines(), t.fdata().branches().size(), t.fdata().samples().size());
    }
}
