package dev.splice.profile;

import dev.splice.base.BadInputException;
import dev.splice.base.InputFiles;
import dev.splice.bat.BatTables;
import dev.splice.elf.ElfFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * Profile translation, perf2bolt's work: a profile collected on a BOLTed binary (perf2bolt's
 * pre-aggregated text or {@code perf script -F ip,brstack}) translated back to the input binary's
 * coordinates with BOLT's address translation tables, or, for a binary BOLT has not rewritten, in
 * its own coordinates as perf2bolt writes it; written as fdata or as BOLT's YAML profile. The
 * semantics are perf2bolt-22's (docs/bat.md).
 *
 * <pre>{@code
 * TranslatedProfile p = ProfileTranslation.translate(Path.of("a.bolt"), Path.of("a.pa"),
 *         ProfileTranslation.InputFormat.PRE_AGGREGATED, ProfileTranslation.Options.DEFAULTS);
 * p.write(Path.of("a.fdata"), ProfileTranslation.OutputFormat.FDATA);
 * }</pre>
 */
public final class ProfileTranslation {
    private ProfileTranslation() {}

    /** The profile's text format. */
    public enum InputFormat {
        /**
         * perf2bolt's pre-aggregated records: {@code B from to count mispreds}, {@code F|f from to
         * count}, {@code S pc count}, {@code T branch from to count}, {@code E event}; addresses in
         * hex, optionally prefixed by a build-id or file name and ':'.
         */
        PRE_AGGREGATED,
        /** The text of {@code perf script -F ip,brstack}. */
        PERF_SCRIPT
    }

    /** The output format. */
    public enum OutputFormat {
        /** BOLT's fdata, as perf2bolt writes it. */
        FDATA,
        /** BOLT's YAML profile, with function and block hashes (BOLTed binaries only). */
        YAML
    }

    /**
     * How to translate.
     *
     * @param basicSamples use only samples without branch stacks (S records) and make a no_lbr profile
     * @param skipBadLines skip malformed lines and count them, instead of refusing the profile
     * @param inputBinary the binary BOLT optimized, or null: with it, code BOLT left in place that
     *     perf2bolt names by an internal name ({@code __BOLT_FDE_FUNCat...}, {@code .bolt.org.text/1})
     *     is named after the input's function at the same address, so that llvm-bolt finds it
     * @param progress told the number of lines read now and then, or null
     */
    public record Options(boolean basicSamples, boolean skipBadLines, Path inputBinary, LongConsumer progress) {
        /** Branches, no bad lines allowed, no input binary, no progress. */
        public static final Options DEFAULTS = new Options(false, false, null, null);
    }

    /** Profiles larger than this are read by several threads, each over its own part of the file. */
    private static final long PARALLEL_THRESHOLD = 32L << 20;

    /**
     * Translates a profile file (a large one is read by several threads, each over its part).
     *
     * @param binary the binary the profile was collected on: BOLTed (with tables), or one BOLT has not rewritten
     * @param profile the profile
     * @param format its format
     * @param options how
     * @return the translated profile
     * @throws BadInputException if a file cannot be read or is malformed, or perf2bolt would refuse it
     */
    public static TranslatedProfile translate(Path binary, Path profile, InputFormat format, Options options) {
        Setup setup = setup(ElfFile.read(binary), options);
        if (InputFiles.isOpenDescriptor(profile)) {
            return streamed(setup, profile, format, options);
        }
        long size = InputFiles.requireRegular(profile);
        int parts = size < PARALLEL_THRESHOLD ? 1 : Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        // splice.bat.threads overrides the number of parts (tests check that the result does not depend on it).
        parts = Integer.getInteger("splice.bat.threads", parts);
        long[] bounds = partBounds(profile, size, parts);
        parts = bounds.length - 1;
        ProfileTranslator[] translators = new ProfileTranslator[parts];
        ProfileReader[] readers = new ProfileReader[parts];
        RuntimeException[] failures = new RuntimeException[parts];
        Thread[] threads = new Thread[parts];
        for (int k = 0; k < parts; k++) {
            int part = k;
            translators[k] = new ProfileTranslator(setup.bat, setup.binary, options.basicSamples());
            // Progress from the first part, scaled: the parts are about the same size.
            int scale = parts;
            readers[k] = new ProfileReader(format, profile.toString(), options.skipBadLines(),
                    k == 0 && options.progress() != null ? lines -> options.progress().accept(lines * scale) : null);
            threads[k] = new Thread(() -> {
                try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(profile)) {
                    channel.position(bounds[part]);
                    InputStream in = new BoundedInputStream(java.nio.channels.Channels.newInputStream(channel), bounds[part + 1] - bounds[part]);
                    readers[part].read(in, translators[part]);
                } catch (IOException e) {
                    failures[part] = new BadInputException(profile + ": cannot read: " + e.getMessage(), e);
                } catch (RuntimeException e) {
                    failures[part] = e;
                }
            }, "splice-profile-" + k);
            threads[k].start();
        }
        for (int k = 0; k < parts; k++) {
            try {
                threads[k].join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        return finish(setup, readers, translators, failures);
    }

    /** A pipe (/dev/stdin): one part, read as it comes (the reader bounds each line). */
    private static TranslatedProfile streamed(Setup setup, Path profile, InputFormat format, Options options) {
        ProfileTranslator translator = new ProfileTranslator(setup.bat, setup.binary, options.basicSamples());
        ProfileReader reader = new ProfileReader(format, profile.toString(), options.skipBadLines(), options.progress());
        RuntimeException[] failure = new RuntimeException[1];
        try (InputStream in = InputFiles.openStream(profile)) {
            reader.read(in, translator);
        } catch (IOException e) {
            failure[0] = new BadInputException(profile + ": cannot read: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            failure[0] = e;
        }
        return finish(setup, new ProfileReader[] {reader}, new ProfileTranslator[] {translator}, failure);
    }

    /**
     * Translates profile text from a reader.
     *
     * @param binary the binary the profile was collected on: BOLTed (with tables), or one BOLT has not rewritten
     * @param profile the profile's text
     * @param format its format
     * @param options how
     * @return the translated profile
     * @throws BadInputException if the text or a binary is malformed, or perf2bolt would refuse it
     */
    public static TranslatedProfile translate(ElfFile binary, Reader profile, InputFormat format, Options options) {
        Setup setup = setup(binary, options);
        ProfileTranslator translator = new ProfileTranslator(setup.bat, setup.binary, options.basicSamples());
        ProfileReader reader = new ProfileReader(format, "profile", options.skipBadLines(), options.progress());
        RuntimeException[] failure = new RuntimeException[1];
        try {
            reader.read(new ReaderStream(profile), translator);
        } catch (IOException e) {
            failure[0] = new BadInputException("profile: cannot read: " + e.getMessage(), e);
        } catch (RuntimeException e) {
            failure[0] = e;
        }
        return finish(setup, new ProfileReader[] {reader}, new ProfileTranslator[] {translator}, failure);
    }

    /** The binary as translation sees it. */
    private record Setup(ElfFile elf, boolean bolted, BatTables bat, RewrittenBinary binary) {}

    private static Setup setup(ElfFile elf, Options options) {
        if (elf.symbols().isEmpty()) {
            // perf2bolt-22 refuses these too (unless --allow-stripped, where its functions and names
            // depend on heuristics Splice does not repeat: 8,339 of 11,428 lines differed on libstdc++).
            throw new BadInputException(elf.name() + ": stripped (no .symtab): perf2bolt-22 does not translate profiles of"
                    + " stripped binaries either; use the unstripped binary");
        }
        boolean bolted = BatTables.enabledFor(elf);
        if (!bolted && options.inputBinary() != null) {
            throw notBolted(elf, "--input names code BOLT left in place in a BOLTed binary; this binary is the input itself");
        }
        BatTables bat = bolted ? BatTables.read(elf) : new BatTables(java.util.List.of(), java.util.List.of());
        RewrittenBinary binary = RewrittenBinary.of(elf, bat,
                options.inputBinary() == null ? null : ElfFile.read(options.inputBinary()));
        return new Setup(elf, bolted, bat, binary);
    }

    static BadInputException notBolted(ElfFile elf, String why) {
        return new BadInputException(elf.name() + ": no " + BatTables.SECTION_NAME + " section (not BOLTed): " + why);
    }

    /** Merges the parts' aggregates (failures first, in part order) into the translated profile. */
    private static TranslatedProfile finish(Setup setup, ProfileReader[] readers, ProfileTranslator[] translators,
                                            RuntimeException[] failures) {
        long lineBase = 0;
        long lines = 0;
        long badLines = 0;
        String firstBad = null;
        for (int k = 0; k < readers.length; k++) {
            if (failures[k] instanceof ProfileReader.BadLineException bad) {
                throw new BadInputException(bad.badLine().describe(lineBase));
            }
            if (failures[k] != null) {
                throw failures[k];
            }
            if (firstBad == null && readers[k].firstBadLine() != null) {
                firstBad = readers[k].firstBadLine().describe(lineBase);
            }
            badLines += readers[k].badLines();
            lineBase += readers[k].lines();
            lines += readers[k].lines();
            if (k > 0) {
                translators[0].mergeFrom(translators[k]);
            }
        }
        ProfileTranslator translator = translators[0];
        Fdata fdata = setup.bolted ? translator.translate() : translator.translate().collectedOnInput();
        return new TranslatedProfile(setup.elf, setup.bolted ? setup.bat : null, translator, fdata, lines, badLines, firstBad,
                translator.distinctRecords());
    }

    /** Part boundaries: about equal byte ranges, each starting just after a newline. */
    private static long[] partBounds(Path file, long size, int parts) {
        java.util.List<Long> bounds = new java.util.ArrayList<>();
        bounds.add(0L);
        try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file)) {
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.allocate(1 << 16);
            for (int k = 1; k < parts; k++) {
                long at = Math.max(size * k / parts, bounds.get(bounds.size() - 1));
                long boundary = -1;
                while (boundary < 0 && at < size) {
                    buffer.clear();
                    int n = channel.read(buffer, at);
                    if (n <= 0) {
                        break;
                    }
                    for (int i = 0; i < n; i++) {
                        if (buffer.get(i) == '\n') {
                            boundary = at + i + 1;
                            break;
                        }
                    }
                    at += n;
                }
                if (boundary > bounds.get(bounds.size() - 1) && boundary < size) {
                    bounds.add(boundary);
                }
            }
        } catch (IOException e) {
            throw new BadInputException(file + ": cannot read: " + e.getMessage(), e);
        }
        bounds.add(size);
        long[] out = new long[bounds.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = bounds.get(i);
        }
        return out;
    }

    /** At most {@code limit} bytes of a stream. */
    private static final class BoundedInputStream extends java.io.FilterInputStream {
        private long left;

        BoundedInputStream(InputStream in, long limit) {
            super(in);
            this.left = limit;
        }

        @Override
        public int read() throws IOException {
            if (left <= 0) {
                return -1;
            }
            int b = super.read();
            if (b >= 0) {
                left--;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left <= 0) {
                return -1;
            }
            int n = super.read(b, off, (int) Math.min(len, left));
            if (n > 0) {
                left -= n;
            }
            return n;
        }
    }

    /** The UTF-8 bytes of a reader's text, for the byte-parsing {@link ProfileReader}. */
    private static final class ReaderStream extends InputStream {
        private final Reader reader;
        private final java.nio.charset.CharsetEncoder encoder = java.nio.charset.StandardCharsets.UTF_8.newEncoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPLACE)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPLACE);
        private final java.nio.CharBuffer chars = java.nio.CharBuffer.allocate(1 << 15);
        private final java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(1 << 17);
        private boolean eof;
        private boolean flushed;

        ReaderStream(Reader reader) {
            this.reader = reader;
            chars.flip();
            bytes.flip();
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            while (!bytes.hasRemaining()) {
                if (flushed) {
                    return -1;
                }
                if (!eof) {
                    chars.compact();
                    eof = reader.read(chars) < 0;
                    chars.flip();
                }
                bytes.clear();
                encoder.encode(chars, bytes, eof);
                if (eof && !chars.hasRemaining()) {
                    encoder.flush(bytes);
                    flushed = true;
                }
                bytes.flip();
            }
            int n = Math.min(len, bytes.remaining());
            bytes.get(b, off, n);
            return n;
        }
    }
}
