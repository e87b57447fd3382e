package dev.splice.profile;

import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import dev.splice.bat.BatTables;
import dev.splice.elf.ElfFile;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.function.LongConsumer;

/**
 * Translates a profile file for a BOLTed binary (or, as perf2bolt does without tables, for a binary
 * BOLT has not rewritten) and writes fdata or YAML atomically.
 */
public final class ProfileTranslation {
    private ProfileTranslation() {}

    /** The output format. */
    public enum OutputFormat { FDATA, YAML }

    /**
     * What to translate and how. {@code inputBinary} (may be null) is the binary BOLT optimized: with
     * it, code BOLT left in place that perf2bolt names by an internal name is named after the input's
     * function at the same address (see {@link RewrittenBinary#of(ElfFile, BatTables, ElfFile)}).
     */
    public record Request(Path binary, Path profile, ProfileReader.Format inputFormat, Path output,
                          OutputFormat outputFormat, boolean basicSamples, boolean skipBadLines, Path inputBinary) {
        public Request(Path binary, Path profile, ProfileReader.Format inputFormat, Path output,
                       OutputFormat outputFormat, boolean basicSamples, boolean skipBadLines) {
            this(binary, profile, inputFormat, output, outputFormat, basicSamples, skipBadLines, null);
        }
    }

    /** What happened. */
    public record Result(long lines, long badLines, String firstBadLine, int distinctRecords, int branchLines, int sampleLines) {}

    /** Profiles larger than this are read by several threads, each over its own part of the file. */
    private static final long PARALLEL_THRESHOLD = 32L << 20;

    public static Result run(Request request, LongConsumer progress) {
        ElfFile elf = ElfFile.read(request.binary());
        if (elf.symbols().isEmpty()) {
            // perf2bolt-22 refuses these too (unless --allow-stripped, where its functions and names
            // depend on heuristics Splice does not repeat: 8,339 of 11,428 lines differed on libstdc++).
            throw new BadInputException(elf.name() + ": stripped (no .symtab): perf2bolt-22 does not translate profiles of"
                    + " stripped binaries either; use the unstripped binary");
        }
        boolean bolted = BatTables.enabledFor(elf);
        BatTables bat = bolted ? BatTables.read(elf) : withoutTables(elf, request);
        RewrittenBinary binary = RewrittenBinary.of(elf, bat,
                request.inputBinary() == null ? null : ElfFile.read(request.inputBinary()));
        long size;
        try {
            size = Files.size(request.profile());
        } catch (NoSuchFileException e) {
            throw new BadInputException(request.profile() + ": no such file", e);
        } catch (IOException e) {
            throw new BadInputException(request.profile() + ": cannot read: " + e.getMessage(), e);
        }
        int parts = size < PARALLEL_THRESHOLD ? 1 : Math.max(1, Math.min(4, Runtime.getRuntime().availableProcessors()));
        // splice.bat.threads overrides the number of parts (tests check that the result does not depend on it).
        parts = Integer.getInteger("splice.bat.threads", parts);
        long[] bounds = partBounds(request.profile(), size, parts);
        parts = bounds.length - 1;
        ProfileTranslator[] translators = new ProfileTranslator[parts];
        ProfileReader[] readers = new ProfileReader[parts];
        RuntimeException[] failures = new RuntimeException[parts];
        Thread[] threads = new Thread[parts];
        for (int k = 0; k < parts; k++) {
            int part = k;
            translators[k] = new ProfileTranslator(bat, binary, request.basicSamples());
            // Progress from the first part, scaled: the parts are about the same size.
            int scale = parts;
            readers[k] = new ProfileReader(request.inputFormat(), request.profile().toString(), request.skipBadLines(),
                    k == 0 && progress != null ? lines -> progress.accept(lines * scale) : null);
            threads[k] = new Thread(() -> {
                try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(request.profile())) {
                    channel.position(bounds[part]);
                    InputStream in = new BoundedInputStream(java.nio.channels.Channels.newInputStream(channel), bounds[part + 1] - bounds[part]);
                    readers[part].read(in, translators[part]);
                } catch (IOException e) {
                    failures[part] = new BadInputException(request.profile() + ": cannot read: " + e.getMessage(), e);
                } catch (RuntimeException e) {
                    failures[part] = e;
                }
            }, "splice-profile-" + k);
            threads[k].start();
        }
        long lineBase = 0;
        long lines = 0;
        long badLines = 0;
        String firstBad = null;
        for (int k = 0; k < parts; k++) {
            try {
                threads[k].join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted", e);
            }
        }
        for (int k = 0; k < parts; k++) {
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
        Fdata fdata = bolted ? translator.translate() : translator.translate().collectedOnInput();
        AtomicFiles.write(request.output(), stream -> {
            Writer out = new OutputStreamWriter(stream, StandardCharsets.UTF_8);
            if (request.outputFormat() == OutputFormat.YAML) {
                new YamlProfile(elf, bat, fdata, translator).write(out);
            } else {
                fdata.write(out);
            }
            out.flush();
        });
        return new Result(lines, badLines, firstBad, translator.distinctRecords(), fdata.branches().size(), fdata.samples().size());
    }

    /**
     * A binary BOLT has not rewritten: perf2bolt's profile in its own coordinates, every function
     * through its CFG. Refused where Splice would not be perf2bolt exactly.
     */
    private static BatTables withoutTables(ElfFile elf, Request request) {
        String why = null;
        if (request.outputFormat() == OutputFormat.YAML) {
            why = "YAML profiles need BOLT's function and block hashes, which only a BOLTed binary's tables give;"
                    + " write fdata (the default)";
        } else if (request.inputBinary() != null) {
            why = "--input names code BOLT left in place in a BOLTed binary; this binary is the input itself";
        }
        if (why != null) {
            throw new BadInputException(elf.name() + ": no " + BatTables.SECTION_NAME + " section (not BOLTed): " + why);
        }
        return new BatTables(java.util.List.of(), java.util.List.of());
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
}
