package dev.splice.profile;

import dev.splice.base.AtomicFiles;
import dev.splice.bat.BatTables;
import dev.splice.elf.ElfFile;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * A profile translated by {@link ProfileTranslation}: its lines as {@link Fdata}, what was read,
 * and the writers of its two formats.
 */
public final class TranslatedProfile {
    private final ElfFile elf;
    /** The binary's tables; null when it is not BOLTed (then no YAML). */
    private final BatTables bat;
    private final ProfileTranslator translator;
    private final Fdata fdata;
    private final long lines;
    private final long badLines;
    private final String firstBadLine;
    private final int distinctRecords;

    TranslatedProfile(ElfFile elf, BatTables bat, ProfileTranslator translator, Fdata fdata, long lines, long badLines,
                      String firstBadLine, int distinctRecords) {
        this.elf = elf;
        this.bat = bat;
        this.translator = translator;
        this.fdata = fdata;
        this.lines = lines;
        this.badLines = badLines;
        this.firstBadLine = firstBadLine;
        this.distinctRecords = distinctRecords;
    }

    /** {@return the profile in input-binary coordinates, as fdata lines} */
    public Fdata fdata() {
        return fdata;
    }

    /** {@return the number of lines read} */
    public long lines() {
        return lines;
    }

    /** {@return the number of malformed lines skipped (with {@link ProfileTranslation.Options#skipBadLines()})} */
    public long badLines() {
        return badLines;
    }

    /** {@return where the first skipped line is and what was wrong with it ("file:line:column: problem"), or null} */
    public String firstBadLine() {
        return firstBadLine;
    }

    /** {@return the number of distinct translated edges (or samples)} */
    public int distinctRecords() {
        return distinctRecords;
    }

    /**
     * Writes the profile to a file, atomically (a temporary file renamed; nothing is left on failure).
     *
     * @param out the output file
     * @param format fdata or YAML
     * @throws dev.splice.base.BadInputException for YAML of a binary BOLT has not rewritten
     */
    public void write(Path out, ProfileTranslation.OutputFormat format) {
        checkFormat(format);
        AtomicFiles.write(out, stream -> {
            Writer w = new OutputStreamWriter(stream, StandardCharsets.UTF_8);
            write(w, format);
            w.flush();
        });
    }

    /**
     * Writes the profile.
     *
     * @param out where it goes (not closed)
     * @param format fdata or YAML
     * @throws IOException if writing fails
     * @throws dev.splice.base.BadInputException for YAML of a binary BOLT has not rewritten
     */
    public void write(Writer out, ProfileTranslation.OutputFormat format) throws IOException {
        checkFormat(format);
        if (format == ProfileTranslation.OutputFormat.YAML) {
            new YamlProfile(elf, bat, fdata, translator).write(out);
        } else {
            fdata.write(out);
        }
    }

    private void checkFormat(ProfileTranslation.OutputFormat format) {
        if (format == ProfileTranslation.OutputFormat.YAML && bat == null) {
            throw ProfileTranslation.notBolted(elf, "YAML profiles need BOLT's function and block hashes, which only a"
                    + " BOLTed binary's tables give; write fdata (the default)");
        }
    }
}
