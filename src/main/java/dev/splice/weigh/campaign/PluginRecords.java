package dev.splice.weigh.campaign;

import dev.splice.base.BadInputException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;

/**
 * The contents of a record file written by the Splice QEMU plugin ({@code native/qemu-plugin/},
 * format in docs/formats.md, "QEMU plugin records"). Only complete files parse: a file without
 * its final {@code end} line (a run that died) is refused.
 *
 * @param mode what the plugin measured
 * @param apiCurrent the newest plugin interface version the QEMU that ran it implements
 * @param apiMinimum the oldest plugin interface version that QEMU still supports
 * @param startMarker the start marker's 32-bit encoding
 * @param stopMarker the stop marker's 32-bit encoding
 * @param minPc first address of the guest code range the plugin watched
 * @param maxPc end (exclusive) of that range
 * @param executedInstructions count mode: executed guest instructions; empty in other modes
 * @param validationWindows validation mode: the windows in execution order; empty otherwise
 * @param timingWindows timing mode: the windows in execution order; empty otherwise
 * @param catalog catalog mode: per encoding, translated slots and executions; empty otherwise
 * @param blocks catalog mode: per kind of translation block, blocks translated and left through
 *     their end; empty otherwise and in records of plugins that did not count them
 * @param translationBlocks catalog mode: every translated block with its entries and the producers
 *     of its instructions' operands; empty otherwise and in records of plugins that did not record them
 * @param dynamics catalog mode: how the run left its blocks and which cache level served its memory
 *     accesses; null otherwise and in records of plugins that did not record them
 * @param footer the failure counters every mode writes
 */
public record PluginRecords(
        Mode mode,
        int apiCurrent,
        int apiMinimum,
        long startMarker,
        long stopMarker,
        long minPc,
        long maxPc,
        OptionalLong executedInstructions,
        List<ValidationWindow> validationWindows,
        List<TimingWindow> timingWindows,
        List<CatalogEntry> catalog,
        List<Catalog.Block> blocks,
        List<TranslationBlock> translationBlocks,
        Catalog.Dynamics dynamics,
        Footer footer) {

    /**
     * Copies the lists.
     *
     * @param mode see {@link #mode()}
     * @param apiCurrent see {@link #apiCurrent()}
     * @param apiMinimum see {@link #apiMinimum()}
     * @param startMarker see {@link #startMarker()}
     * @param stopMarker see {@link #stopMarker()}
     * @param minPc see {@link #minPc()}
     * @param maxPc see {@link #maxPc()}
     * @param executedInstructions see {@link #executedInstructions()}
     * @param validationWindows see {@link #validationWindows()}
     * @param timingWindows see {@link #timingWindows()}
     * @param catalog see {@link #catalog()}
     * @param blocks see {@link #blocks()}
     * @param translationBlocks see {@link #translationBlocks()}
     * @param dynamics see {@link #dynamics()}
     * @param footer see {@link #footer()}
     */
    public PluginRecords {
        blocks = List.copyOf(blocks);
        translationBlocks = List.copyOf(translationBlocks);
        validationWindows = List.copyOf(validationWindows);
        timingWindows = List.copyOf(timingWindows);
        catalog = List.copyOf(catalog);
    }

    /**
     * One translated block of catalog mode (a line {@code t KIND ENTERED N ENC:SIZE:P1:P2:P3 ...}).
     *
     * @param kind how the block ends, one of the block kinds ({@code branch}, {@code indirect}, ...)
     * @param entered how many times the block was entered
     * @param instructions its instructions in order
     */
    public record TranslationBlock(String kind, long entered, List<BlockInstruction> instructions) {
        /**
         * Copies the list.
         *
         * @param kind see {@link #kind()}
         * @param entered see {@link #entered()}
         * @param instructions see {@link #instructions()}
         */
        public TranslationBlock {
            instructions = List.copyOf(instructions);
        }
    }

    /**
     * An instruction of a translated block.
     *
     * @param encoding the raw encoding
     * @param size 2 or 4 bytes
     * @param producers indices (in the block, all smaller than this instruction's) of the
     *     instructions whose results it reads, at most three, without repeats
     */
    public record BlockInstruction(long encoding, int size, List<Integer> producers) {
        /**
         * Copies the list.
         *
         * @param encoding see {@link #encoding()}
         * @param size see {@link #size()}
         * @param producers see {@link #producers()}
         */
        public BlockInstruction {
            producers = List.copyOf(producers);
        }
    }

    /** The plugin's modes, as named in its {@code mode=} argument. */
    public enum Mode {
        /** Executed guest instructions of the whole run. */
        COUNT("count"),
        /** Per window, every encoding executed between the markers. */
        VALIDATION("validation"),
        /** Per window, the vCPU thread's CPU time at the markers. */
        TIMING("timing"),
        /** Per encoding over the whole run, translated slots and executions. */
        CATALOG("catalog");

        private final String argument;

        Mode(String argument) {
            this.argument = argument;
        }

        /**
         * The mode's name.
         *
         * @return the value of the plugin's {@code mode=} argument
         */
        public String argument() {
            return argument;
        }
    }

    /**
     * Catalog mode: one raw encoding over a whole run.
     *
     * @param encoding the raw encoding (little-endian value)
     * @param size its size, 2 or 4 bytes
     * @param translated instruction slots with this encoding that QEMU translated (a slot
     *     translated twice counts twice)
     * @param executed how many times those slots executed
     */
    public record CatalogEntry(long encoding, int size, long translated, long executed) {}

    /**
     * How many times one raw encoding executed inside a window.
     *
     * @param encoding the raw encoding (little-endian value)
     * @param size its size, 2 or 4 bytes
     * @param count executions, at least 1
     */
    public record EncodingCount(long encoding, int size, long count) {}

    /**
     * A validation window: every encoding executed strictly between a start and a stop marker.
     *
     * @param index the window's number (0, 1, 2, ...)
     * @param startPc the start marker's address
     * @param stopPc the stop marker's address
     * @param translations translation blocks created while the window was open
     * @param executed the sum of all counts
     * @param encodings the encodings, by size then encoding
     */
    public record ValidationWindow(
            long index, long startPc, long stopPc, long translations, long executed, List<EncodingCount> encodings) {
        /**
         * Copies the encodings.
         *
         * @param index see {@link #index()}
         * @param startPc see {@link #startPc()}
         * @param stopPc see {@link #stopPc()}
         * @param translations see {@link #translations()}
         * @param executed see {@link #executed()}
         * @param encodings see {@link #encodings()}
         */
        public ValidationWindow {
            encodings = EncodingCounts.of(encodings);
        }

        /**
         * How many times an encoding executed in this window.
         *
         * @param encoding the raw encoding
         * @param size its size in bytes
         * @return the count, 0 if never
         */
        public long count(long encoding, int size) {
            for (EncodingCount e : encodings) {
                if (e.encoding() == encoding && e.size() == size) {
                    return e.count();
                }
            }
            return 0;
        }
    }

    /**
     * A timing window: the vCPU thread's CPU time (CLOCK_THREAD_CPUTIME_ID, ns) at the start and
     * stop markers, and the translations inside (a window with translations is contaminated).
     *
     * @param index the window's number (0, 1, 2, ...)
     * @param startPc the start marker's address
     * @param stopPc the stop marker's address
     * @param startNs the thread's CPU time at the start marker
     * @param stopNs the thread's CPU time at the stop marker
     * @param translations translation blocks created while the window was open
     * @param timerFailed whether the clock could not be read (the failed time is 0)
     */
    public record TimingWindow(
            long index, long startPc, long stopPc, long startNs, long stopNs, long translations, boolean timerFailed) {
        /**
         * The window's CPU time.
         *
         * @return stop minus start, in ns
         */
        public long elapsedNs() {
            return stopNs - startNs;
        }
    }

    /**
     * Counters of everything that went wrong; {@link #clean()} when nothing did.
     *
     * @param windows windows written
     * @param nestedStarts start markers executed while a window was open (ignored, counted)
     * @param inactiveStops stop markers executed with no open window (ignored, counted)
     * @param translationFailures instructions in the range the plugin could not instrument
     * @param timerFailures windows whose clock could not be read
     * @param openWindows 1 when the guest exited inside a window
     * @param vcpus vCPUs (guest threads) seen; counts are exact only with one
     * @param translations translation blocks created during the whole run
     */
    public record Footer(
            long windows,
            long nestedStarts,
            long inactiveStops,
            long translationFailures,
            long timerFailures,
            long openWindows,
            long vcpus,
            long translations) {
        /**
         * Whether the run had no marker, translation or timer problem and one vCPU.
         *
         * @return true when every failure counter is 0 and there was one vCPU
         */
        public boolean clean() {
            return cleanOn(1);
        }

        /**
         * Whether the run had no marker, translation or timer problem on the given number of vCPUs
         * (a system-mode probe's second hart runs outside the plugin's range: docs/weigh-system.md).
         *
         * @param harts the vCPUs the run was started with
         * @return true when every failure counter is 0 and there were {@code harts} vCPUs
         */
        public boolean cleanOn(long harts) {
            return nestedStarts == 0 && inactiveStops == 0 && translationFailures == 0 && timerFailures == 0
                    && openWindows == 0 && vcpus == harts;
        }
    }

    /**
     * Reads and checks a record file.
     *
     * @param file the plugin's record file
     * @return its records
     * @throws IOException when the file cannot be read
     * @throws BadInputException when it is not ASCII text or does not follow the format
     */
    public static PluginRecords read(Path file) throws IOException {
        byte[] bytes = dev.splice.base.InputFiles.readBytes(file);
        for (int i = 0; i < bytes.length; i++) {
            int b = bytes[i] & 0xff;
            if (b != '\n' && (b < 0x20 || b > 0x7e)) {
                throw new BadInputException(file + ": byte offset " + i + ": unexpected byte 0x"
                        + Integer.toHexString(b) + " (a plugin record file is ASCII text)");
            }
        }
        return parse(new String(bytes, StandardCharsets.US_ASCII), file.toString());
    }

    /**
     * Parses record text.
     *
     * @param text the file's text
     * @param source names it in error messages
     * @return the records
     * @throws BadInputException when it does not follow the format
     */
    public static PluginRecords parse(String text, String source) {
        return new PluginRecordsParser(text, source).parse();
    }
}
