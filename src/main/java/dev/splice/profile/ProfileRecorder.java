package dev.splice.profile;

import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Segment;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Optional;

/**
 * {@code splice profile record}: the exact branch trace of one run under QEMU (the plugin's trace
 * mode) written as BOLT's fdata in the binary's coordinates, the way perf2bolt-22 aggregates the
 * same trace given as pre-aggregated records, or as those records themselves. For a binary BOLT
 * rewrote with {@code --enable-bat} the fdata is in the input binary's coordinates, through its
 * translation tables ({@link ProfileTranslation}). Running the guest is the caller's (the facade
 * {@code dev.splice.Profiles.record} runs it under {@code qemu-riscv64} with the plugin); this class
 * knows what the records mean.
 *
 * <pre>{@code
 * TraceRecords trace = TraceRecords.read(Path.of("run.records")); // mode=trace,out=run.records
 * ProfileRecorder.write(Path.of("prog"), trace, Path.of("prog.fdata"), ProfileRecorder.Format.FDATA, null);
 * }</pre>
 */
public final class ProfileRecorder {
    private ProfileRecorder() {}

    /** What {@code record} writes. */
    public enum Format {
        /** BOLT's fdata, as perf2bolt-22 writes it for the recorded trace. */
        FDATA,
        /** perf2bolt's pre-aggregated {@code B}/{@code F} records ({@code perf2bolt --pa} input). */
        PRE_AGGREGATED
    }

    /**
     * A recorded run.
     *
     * @param exitCode the guest's exit status (128 + N when signal N killed it)
     * @param trace the trace, empty when the guest died of a signal (QEMU 7.2 then runs no plugin
     *     exit hook, so there are no records) and nothing was written
     * @param lines the lines written to the output (0 when nothing was written)
     */
    public record Result(int exitCode, Optional<TraceRecords> trace, long lines) {
        /**
         * The signal that killed the guest.
         *
         * @return the signal number, or 0
         */
        public int signal() {
            return exitCode > 128 && exitCode < 128 + 65 ? exitCode - 128 : 0;
        }

        /**
         * The line {@code profile record} prints on stderr after a run: what was recorded and
         * written, or why nothing was.
         *
         * @param output the profile file
         * @return the line, without a line break
         */
        public String summary(Path output) {
            if (trace.isEmpty()) {
                return "splice: no profile: the program died of signal " + signal()
                        + " (QEMU 7.2 runs no plugin exit hook then, so there is no trace)";
            }
            TraceRecords t = trace.get();
            TraceRecords.ThreadTrace sum = t.summed();
            return String.format("splice: recorded %,d taken branches and %,d ranges (%,d distinct, %,d distinct) in %d"
                    + " thread%s; wrote %,d lines to %s (exit status %d)", total(sum.branches()), total(sum.ranges()),
                    sum.branches().size(), sum.ranges().size(), t.threads().size(), t.threads().size() == 1 ? "" : "s",
                    lines, output, exitCode);
        }

        private static long total(java.util.Map<TraceRecords.Transfer, Long> counts) {
            long n = 0;
            for (long c : counts.values()) {
                n += c;
            }
            return n;
        }
    }

    /**
     * The profile of a finished run, written atomically; nothing is written when the guest died of
     * a signal (no trace).
     *
     * @param binary the binary that ran (the profile's coordinates are its own, or its input's if it
     *     carries BAT)
     * @param exitCode the guest's exit status
     * @param trace the plugin's records ({@link TraceRecords#read}), empty when the guest died of a
     *     signal
     * @param output the file to write
     * @param format what to write
     * @param inputBinary for a BOLTed binary, the binary BOLT optimized (names code BOLT left in
     *     place after the input's functions, as {@code bat translate --input}), or null
     * @return the exit status, the trace and the lines written
     * @throws BadInputException when the trace is not exact, or the profile cannot be translated
     */
    public static Result write(Path binary, int exitCode, Optional<TraceRecords> trace, Path output, Format format,
                               Path inputBinary) {
        return write(null, binary, exitCode, trace, output, format, inputBinary);
    }

    /**
     * Reads {@code binary} and makes the translation ready (its classes loaded, the ELF's tables
     * read) while the guest runs: {@code profile record}'s JVM work then overlaps QEMU's, which
     * matters for short runs. The result goes to {@link #write(ElfFile, Path, int, Optional, Path,
     * Format, Path)}.
     *
     * @param binary the binary that is about to run
     * @param format what will be written
     * @param inputBinary for a BOLTed binary, the binary BOLT optimized, or null
     * @return the binary, read
     * @throws BadInputException when the binary or its BAT cannot be read
     */
    public static ElfFile prepare(Path binary, Format format, Path inputBinary) {
        ElfFile elf = ElfFile.read(binary);
        warmUp(elf, format, inputBinary);
        return elf;
    }

    /**
     * Runs what follows the guest's exit once, on a one-range trace at the entry point, with the
     * output in memory: reading the records, their aggregation, the translation (the entry's
     * function's CFG) and the fdata and summary text. Measured on {@code loops 3000000}: about 330
     * classes were loaded only after QEMU had exited; their loading and first, interpreted runs now
     * overlap the guest's.
     */
    private static void warmUp(ElfFile elf, Format format, Path inputBinary) {
        long code = LoadedImage.codeStart(elf);
        long entry = elf.header().entry();
        TraceRecords trace = TraceRecords.parse("splice-plugin-records 1\nmode " + TraceRecords.MODE + "\nrange 0x"
                + Long.toHexString(code) + " 0x" + Long.toHexString(code + 2)
                + "\nthreads 1 lost_threads 0 out_of_memory 0\nthread 0 branches 0 ranges 1 discontinuities 0\nf 0x"
                + Long.toHexString(entry) + " 0x" + Long.toHexString(entry) + " 1\nfooter translation_failures 0\nend\n",
                "the warm-up trace");
        long lines = 1;
        if (format == Format.FDATA) {
            StringWriter fdata = new StringWriter();
            try {
                translated(elf, trace, inputBinary).write(fdata, ProfileTranslation.OutputFormat.FDATA);
            } catch (IOException e) {
                throw new IllegalStateException(e); // a StringWriter does not fail
            }
            lines = fdata.toString().lines().count();
        } else {
            preAggregated(elf, trace);
        }
        new Result(0, Optional.of(trace), lines).summary(Path.of(elf.name()));
    }

    /**
     * As {@link #write(Path, int, Optional, Path, Format, Path)}, with the binary read already
     * ({@link #prepare}).
     *
     * @param elf the binary, read ({@link #prepare}), or null to read it here
     * @param binary the binary that ran
     * @param exitCode the guest's exit status
     * @param trace the plugin's records, empty when the guest died of a signal
     * @param output the file to write
     * @param format what to write
     * @param inputBinary for a BOLTed binary, the binary BOLT optimized, or null
     * @return the exit status, the trace and the lines written
     * @throws BadInputException when the trace is not exact, or the profile cannot be translated
     */
    public static Result write(ElfFile elf, Path binary, int exitCode, Optional<TraceRecords> trace, Path output, Format format,
                               Path inputBinary) {
        if (trace.isEmpty()) {
            return new Result(exitCode, trace, 0);
        }
        TraceRecords t = trace.get();
        if (!t.exact()) {
            throw new BadInputException(binary + ": the trace is not exact (" + t.lostThreads()
                    + " threads not recorded, " + t.outOfMemory() + " counts lost for want of memory, "
                    + t.translationFailures() + " blocks not instrumented); no profile written");
        }
        return new Result(exitCode, trace, write(elf != null ? elf : ElfFile.read(binary), t, output, format, inputBinary));
    }

    /**
     * Writes a trace's profile, atomically.
     *
     * @param binary the binary the trace was recorded on
     * @param trace the trace
     * @param output the file to write
     * @param format what to write
     * @param inputBinary for a BOLTed binary, the binary BOLT optimized, or null
     * @return the lines written
     * @throws BadInputException when the profile cannot be translated (as {@code bat translate})
     */
    public static long write(Path binary, TraceRecords trace, Path output, Format format, Path inputBinary) {
        return write(ElfFile.read(binary), trace, output, format, inputBinary);
    }

    private static long write(ElfFile elf, TraceRecords trace, Path output, Format format, Path inputBinary) {
        if (format == Format.PRE_AGGREGATED) {
            String pa = preAggregated(elf, trace);
            AtomicFiles.write(output, pa);
            return pa.chars().filter(c -> c == '\n').count();
        }
        TranslatedProfile profile = translated(elf, trace, inputBinary);
        profile.write(output, ProfileTranslation.OutputFormat.FDATA);
        return (long) profile.fdata().branches().size() + profile.fdata().samples().size();
    }

    private static String preAggregated(ElfFile elf, TraceRecords trace) {
        return trace.preAggregated(LoadedImage.of(elf, trace.loadedCode())::toBinary);
    }

    private static TranslatedProfile translated(ElfFile elf, TraceRecords trace, Path inputBinary) {
        return ProfileTranslation.translate(elf, new StringReader(preAggregated(elf, trace)),
                ProfileTranslation.InputFormat.PRE_AGGREGATED, new ProfileTranslation.Options(false, false, inputBinary, null));
    }

    /**
     * Where the executable lay in the guest: its loadable segments moved by the load bias (0 for a
     * static executable, QEMU's base for a PIE).
     */
    private record LoadedImage(long bias, long start, long end) {
        static LoadedImage of(ElfFile elf, long loadedCode) {
            long start = Long.MAX_VALUE;
            long end = 0;
            for (Segment s : elf.segments()) {
                if (s.isLoad()) {
                    start = Math.min(start, s.virtualAddress());
                    end = Math.max(end, s.virtualAddress() + s.memorySize());
                }
            }
            long bias = loadedCode - codeStart(elf);
            return new LoadedImage(bias, start + bias, end + bias);
        }

        /** The lowest address of the executable's executable segments, in its own coordinates. */
        static long codeStart(ElfFile elf) {
            long code = Long.MAX_VALUE;
            for (Segment s : elf.segments()) {
                if (s.isLoad() && s.isExecutable()) {
                    code = Math.min(code, s.virtualAddress());
                }
            }
            if (code == Long.MAX_VALUE) {
                throw new BadInputException(elf.name() + ": no executable PT_LOAD segment");
            }
            return code;
        }

        /**
         * The binary's own address of a guest address; 0, which is in no function, for code outside
         * the executable (the dynamic loader, shared libraries, QEMU's signal trampoline), which
         * perf2bolt counts as unknown too.
         */
        long toBinary(long guest) {
            return guest - start >= 0 && guest - start < end - start ? guest - bias : 0;
        }
    }
}
