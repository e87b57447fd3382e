package dev.splice;

import dev.splice.base.BadInputException;
import dev.splice.profile.ProfileReader;
import dev.splice.profile.ProfileTranslation;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Profile translation as perf2bolt does it: a profile collected on a binary BOLT rewrote (one with
 * {@code .note.bolt_bat}) is translated to the input binary's functions and offsets; a profile of a
 * binary BOLT has not rewritten is written in its own coordinates, each function through its CFG.
 * The output is what {@code perf2bolt-22} writes (see docs/bat.md).
 *
 * <pre>{@code
 * // A pre-aggregated profile: one branch from 0x10720 to 0x1070c, taken 7 times, never mispredicted.
 * Files.writeString(Path.of("prog.pa"), "B 10720 1070c 7 0\n");
 * Profiles.translate(Path.of("prog"), Path.of("prog.pa"), Profiles.Input.PRE_AGGREGATED,
 *         Path.of("prog.fdata"), Profiles.Output.FDATA);
 * // prog.fdata: "1 hot_loop 1e 1 hot_loop a 0 7"
 * }</pre>
 */
public final class Profiles {
    private Profiles() {}

    /** The profile formats read. */
    public enum Input {
        /** perf2bolt's pre-aggregated records ({@code B}, {@code F}, {@code f}, {@code S}, {@code T}, {@code E}; {@code perf2bolt --pa}). */
        PRE_AGGREGATED,
        /** The text of {@code perf script -F ip,brstack}. */
        PERF_SCRIPT
    }

    /** The profile formats written. */
    public enum Output {
        /** BOLT's fdata text, as perf2bolt writes it. */
        FDATA,
        /** BOLT's YAML profile (needs a BOLTed binary: its tables give the hashes). */
        YAML
    }

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
     * Translates a profile file and writes the result atomically.
     *
     * @param binary the binary the profile was collected on (with symbols)
     * @param profile the profile
     * @param input the profile's format
     * @param output the file to write
     * @param format the format to write
     * @return what was read and written
     * @throws BadInputException when a file cannot be read or written, a line is malformed, or the
     *     translation is refused (a stripped binary, YAML for a binary BOLT has not rewritten)
     */
    public static Summary translate(Path binary, Path profile, Input input, Path output, Output format) {
        ProfileTranslation.Result r = ProfileTranslation.run(new ProfileTranslation.Request(binary, profile,
                input == Input.PRE_AGGREGATED ? ProfileReader.Format.PRE_AGGREGATED : ProfileReader.Format.PERF_SCRIPT,
                output, format == Output.YAML ? ProfileTranslation.OutputFormat.YAML : ProfileTranslation.OutputFormat.FDATA,
                false, false), null);
        return new Summary(r.lines(), r.badLines(), r.branchLines(), r.sampleLines());
    }

    /**
     * Translates a profile read from a reader and writes the result to a writer.
     *
     * @param binary the binary the profile was collected on (with symbols)
     * @param profile the profile's text (read to its end, not closed)
     * @param input the profile's format
     * @param output where the translated profile goes (flushed, not closed)
     * @param format the format to write
     * @return what was read and written
     * @throws IOException when the reader or the writer fails
     * @throws BadInputException as {@link #translate(Path, Path, Input, Path, Output)}
     */
    public static Summary translate(Path binary, Reader profile, Input input, Writer output, Output format)
            throws IOException {
        // The translation reads and writes files (large profiles are read by several threads, each
        // from its own part of the file): go through temporary ones.
        Path dir = Files.createTempDirectory("splice-profile");
        Path in = dir.resolve("profile");
        Path out = dir.resolve("translated");
        try {
            try (Writer w = Files.newBufferedWriter(in, StandardCharsets.UTF_8)) {
                profile.transferTo(w);
            }
            Summary summary = translate(binary, in, input, out, format);
            try (Reader r = Files.newBufferedReader(out, StandardCharsets.UTF_8)) {
                r.transferTo(output);
            }
            output.flush();
            return summary;
        } finally {
            Files.deleteIfExists(in);
            Files.deleteIfExists(out);
            Files.delete(dir);
        }
    }
}
