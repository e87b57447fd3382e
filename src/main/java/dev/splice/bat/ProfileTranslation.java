package dev.splice.bat;

import dev.splice.BadInputException;
import dev.splice.elf.ElfFile;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.function.LongConsumer;

/** Translates a profile file for a BOLTed binary and writes fdata or YAML atomically. */
public final class ProfileTranslation {
    private ProfileTranslation() {}

    /** The output format. */
    public enum OutputFormat { FDATA, YAML }

    /** What to translate and how. */
    public record Request(Path binary, Path profile, ProfileReader.Format inputFormat, Path output,
                          OutputFormat outputFormat, boolean basicSamples, boolean skipBadLines) {}

    /** What happened. */
    public record Result(long lines, long badLines, String firstBadLine, int distinctRecords, int branchLines, int sampleLines) {}

    public static Result run(Request request, LongConsumer progress) {
        ElfFile elf = ElfFile.read(request.binary());
        BatTables bat = BatTables.read(elf);
        ProfileTranslator translator = new ProfileTranslator(bat, RewrittenBinary.of(elf, bat), request.basicSamples());
        ProfileReader reader = new ProfileReader(request.inputFormat(), request.profile().toString(), request.skipBadLines(), progress);
        try (InputStream in = Files.newInputStream(request.profile())) {
            reader.read(in, translator);
        } catch (NoSuchFileException e) {
            throw new BadInputException(request.profile() + ": no such file", e);
        } catch (IOException e) {
            throw new BadInputException(request.profile() + ": cannot read: " + e.getMessage(), e);
        }
        Fdata fdata = translator.translate();
        writeAtomically(request.output(), out -> {
            if (request.outputFormat() == OutputFormat.YAML) {
                new YamlProfile(elf, bat, fdata, translator).write(out);
            } else {
                fdata.write(out);
            }
        });
        return new Result(reader.lines(), reader.badLines(), reader.firstBadLine(), translator.distinctRecords(),
                fdata.branches().size(), fdata.samples().size());
    }

    /** Writes through a temporary file in the target directory, renamed into place when complete. */
    public interface Body {
        void write(Writer out) throws IOException;
    }

    public static void writeAtomically(Path target, Body body) {
        Path dir = target.toAbsolutePath().getParent();
        Path temp = null;
        try {
            temp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
            try (Writer out = new BufferedWriter(new OutputStreamWriter(Files.newOutputStream(temp), StandardCharsets.UTF_8), 1 << 16)) {
                body.write(out);
            }
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            temp = null;
        } catch (IOException e) {
            throw new UncheckedIOException(target + ": cannot write: " + e.getMessage(), e);
        } finally {
            if (temp != null) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException ignored) {
                    // best effort
                }
            }
        }
    }
}
