package dev.splice.profile;

import dev.splice.base.BadInputException;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongUnaryOperator;

/**
 * The branch trace the Splice QEMU plugin records in trace mode (docs/formats.md, "trace"): per
 * guest thread every taken branch, every fall-through range between taken branches and every
 * discontinuity, with counts. {@link #preAggregated(LongUnaryOperator)} turns it into perf2bolt's pre-aggregated
 * {@code B}/{@code F} records, which {@link ProfileTranslation} turns into fdata as perf2bolt does.
 *
 * @param loadedCode where QEMU loaded the executable's code: the lowest address of its executable
 *     segments, plus the load bias (a PIE runs at a base QEMU chooses)
 * @param threads the threads in order of creation (the main thread first)
 * @param lostThreads threads the plugin could not record (too many at once)
 * @param outOfMemory counts the plugin lost for want of memory
 * @param translationFailures blocks the plugin could not instrument
 */
public record TraceRecords(long loadedCode, List<ThreadTrace> threads, long lostThreads, long outOfMemory,
                           long translationFailures) {
    /** The plugin's mode name for this record kind. */
    public static final String MODE = "trace";

    /**
     * A control transfer or range of one thread.
     *
     * @param from the branch instruction's address, or a range's first address
     * @param to the branch target, or the address of a range's last instruction
     */
    public record Transfer(long from, long to) implements Comparable<Transfer> {
        @Override
        public int compareTo(Transfer o) {
            int c = Long.compareUnsigned(from, o.from);
            return c != 0 ? c : Long.compareUnsigned(to, o.to);
        }
    }

    /**
     * One thread's trace (or several threads' summed).
     *
     * @param thread the thread's number (0 for the main thread; -1 for a sum)
     * @param branches taken branches (source, target) and how often
     * @param ranges fall-through ranges (start, end) and how often
     * @param discontinuities transfers after an instruction that is not a branch (signal delivery,
     *     {@code rt_sigreturn}) and how often
     */
    public record ThreadTrace(int thread, Map<Transfer, Long> branches, Map<Transfer, Long> ranges,
                              Map<Transfer, Long> discontinuities) {
        /**
         * Copies the maps, sorted and unmodifiable.
         *
         * @param thread the thread's number
         * @param branches taken branches
         * @param ranges fall-through ranges
         * @param discontinuities discontinuities
         */
        public ThreadTrace {
            branches = Collections.unmodifiableMap(new TreeMap<>(branches));
            ranges = Collections.unmodifiableMap(new TreeMap<>(ranges));
            discontinuities = Collections.unmodifiableMap(new TreeMap<>(discontinuities));
        }
    }

    /**
     * Copies the thread list.
     *
     * @param loadedCode where the executable's code was loaded
     * @param threads the threads
     * @param lostThreads threads not recorded
     * @param outOfMemory counts lost
     * @param translationFailures blocks not instrumented
     */
    public TraceRecords {
        threads = List.copyOf(threads);
    }

    /**
     * Whether nothing was lost: every thread recorded, every count kept, every block instrumented.
     *
     * @return true when the trace is exact
     */
    public boolean exact() {
        return lostThreads == 0 && outOfMemory == 0 && translationFailures == 0;
    }

    /**
     * All threads summed, as one thread numbered -1.
     *
     * @return the summed trace
     */
    public ThreadTrace summed() {
        Map<Transfer, Long> branches = new TreeMap<>();
        Map<Transfer, Long> ranges = new TreeMap<>();
        Map<Transfer, Long> discontinuities = new TreeMap<>();
        for (ThreadTrace t : threads) {
            t.branches().forEach((k, v) -> branches.merge(k, v, Long::sum));
            t.ranges().forEach((k, v) -> ranges.merge(k, v, Long::sum));
            t.discontinuities().forEach((k, v) -> discontinuities.merge(k, v, Long::sum));
        }
        return new ThreadTrace(-1, branches, ranges, discontinuities);
    }

    /**
     * The summed trace as perf2bolt's pre-aggregated records: {@code B FROM TO COUNT 0} per taken
     * branch (no mispredictions: QEMU has no predictor) and {@code F START END COUNT} per range,
     * addresses in hex. Discontinuities are no branches and have no record.
     *
     * @param toBinary maps a guest address to the binary's own address space
     * @return the records' text, one per line
     */
    public String preAggregated(LongUnaryOperator toBinary) {
        ThreadTrace sum = summed();
        Map<Transfer, Long> branches = new TreeMap<>();
        Map<Transfer, Long> ranges = new TreeMap<>();
        sum.branches().forEach((t, n) -> branches.merge(mapped(t, toBinary), n, Long::sum));
        sum.ranges().forEach((t, n) -> ranges.merge(mapped(t, toBinary), n, Long::sum));
        StringBuilder text = new StringBuilder();
        branches.forEach((t, n) -> text.append("B ").append(Long.toHexString(t.from())).append(' ')
                .append(Long.toHexString(t.to())).append(' ').append(n).append(" 0\n"));
        ranges.forEach((t, n) -> text.append("F ").append(Long.toHexString(t.from())).append(' ')
                .append(Long.toHexString(t.to())).append(' ').append(n).append('\n'));
        return text.toString();
    }

    private static Transfer mapped(Transfer t, LongUnaryOperator toBinary) {
        return new Transfer(toBinary.applyAsLong(t.from()), toBinary.applyAsLong(t.to()));
    }

    /**
     * Reads a record file the plugin wrote in trace mode.
     *
     * @param file the record file
     * @return the trace
     * @throws BadInputException if it cannot be read or does not follow the format (with file:line)
     */
    public static TraceRecords read(Path file) {
        dev.splice.base.InputFiles.requireRegular(file);
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.US_ASCII)) {
            return parse(in, file.toString());
        } catch (NoSuchFileException e) {
            throw new BadInputException(file + ": no such file", e);
        } catch (IOException e) {
            throw new BadInputException(file + ": cannot read: " + e.getMessage(), e);
        }
    }

    /**
     * Parses trace records from text.
     *
     * @param text the record file's text
     * @param name the name to put in messages
     * @return the trace
     * @throws BadInputException if the text does not follow the format (with name:line)
     */
    public static TraceRecords parse(String text, String name) {
        try {
            return parse(new BufferedReader(new StringReader(text)), name);
        } catch (IOException e) {
            throw new IllegalStateException(e); // a StringReader does not fail
        }
    }

    private static TraceRecords parse(BufferedReader in, String name) throws IOException {
        return new Parser(in, name).parse();
    }

    /** The line-by-line reader of one record file. */
    private static final class Parser {
        private final BufferedReader in;
        private final String name;
        private int lineNumber;
        private String line;

        Parser(BufferedReader in, String name) {
            this.in = in;
            this.name = name;
        }

        TraceRecords parse() throws IOException {
            String[] f = next("the header");
            if (f.length != 2 || !f[0].equals("splice-plugin-records") || !f[1].equals("1")) {
                throw error("not a Splice plugin record file of version 1");
            }
            f = next("the mode");
            if (f.length != 2 || !f[0].equals("mode")) {
                throw error("expected 'mode M'");
            }
            if (!f[1].equals(MODE)) {
                throw error("records of mode " + f[1] + ", not " + MODE);
            }
            long loadedCode = -1;
            for (f = next("the threads line"); !f[0].equals("threads"); f = next("the threads line")) {
                if (f[0].equals("range") && f.length == 3) {
                    loadedCode = address(f[1]);
                } else if (!f[0].equals("api") && !f[0].equals("markers")) {
                    throw error("expected 'threads N lost_threads L out_of_memory M'");
                }
            }
            if (loadedCode == -1) {
                throw error("no 'range MIN MAX' line before it");
            }
            expect(f, "threads", 6, "threads N lost_threads L out_of_memory M");
            int count = (int) number(f[1]);
            long lost = field(f, 2, "lost_threads");
            long oom = field(f, 4, "out_of_memory");
            List<ThreadTrace> threads = new ArrayList<>();
            for (int k = 0; k < count; k++) {
                f = next("thread " + k);
                expect(f, "thread", 8, "thread K branches NB ranges NR discontinuities ND");
                int serial = (int) number(f[1]);
                Map<Transfer, Long> branches = entries('b', field(f, 2, "branches"));
                Map<Transfer, Long> ranges = entries('f', field(f, 4, "ranges"));
                Map<Transfer, Long> discontinuities = entries('d', field(f, 6, "discontinuities"));
                threads.add(new ThreadTrace(serial, branches, ranges, discontinuities));
            }
            f = next("the footer");
            if (!f[0].equals("footer") || f.length % 2 == 0) {
                throw error("expected the footer");
            }
            long translationFailures = -1;
            for (int i = 1; i + 1 < f.length; i += 2) {
                if (f[i].equals("translation_failures")) {
                    translationFailures = number(f[i + 1]);
                }
            }
            if (translationFailures < 0) {
                throw error("the footer has no translation_failures");
            }
            f = next("the end line");
            if (f.length != 1 || !f[0].equals("end")) {
                throw error("expected 'end'");
            }
            return new TraceRecords(loadedCode, threads, lost, oom, translationFailures);
        }

        private Map<Transfer, Long> entries(char tag, long count) throws IOException {
            Map<Transfer, Long> map = new TreeMap<>();
            for (long i = 0; i < count; i++) {
                String[] f = next("a '" + tag + "' line");
                if (f.length != 4 || f[0].length() != 1 || f[0].charAt(0) != tag) {
                    throw error("expected '" + tag + " FROM TO COUNT'");
                }
                long n = number(f[3]);
                if (n <= 0) {
                    throw error("a count must be positive");
                }
                if (map.put(new Transfer(address(f[1]), address(f[2])), n) != null) {
                    throw error("repeated " + f[1] + " " + f[2]);
                }
            }
            return map;
        }

        private void expect(String[] f, String keyword, int length, String form) {
            if (f.length != length || !f[0].equals(keyword)) {
                throw error("expected '" + form + "'");
            }
        }

        /** The number after the key at {@code index}. */
        private long field(String[] f, int index, String key) {
            if (!f[index].equals(key)) {
                throw error("expected '" + key + "'");
            }
            return number(f[index + 1]);
        }

        private String[] next(String what) throws IOException {
            line = in.readLine();
            lineNumber++;
            if (line == null) {
                throw new BadInputException(name + ":" + lineNumber + ": the file ends before " + what
                        + " (did the plugin finish?)");
            }
            return line.split(" ", -1);
        }

        private long number(String text) {
            try {
                return Long.parseUnsignedLong(text);
            } catch (NumberFormatException e) {
                throw error("not a number: '" + text + "'");
            }
        }

        private long address(String text) {
            if (!text.startsWith("0x")) {
                throw error("not a 0x address: '" + text + "'");
            }
            try {
                return Long.parseUnsignedLong(text.substring(2), 16);
            } catch (NumberFormatException e) {
                throw error("not a 0x address: '" + text + "'");
            }
        }

        private BadInputException error(String why) {
            return new BadInputException(name + ":" + lineNumber + ": " + why + ": '" + line + "'");
        }
    }
}
