package dev.splice.weigh.campaign;

import dev.splice.base.BadInputException;
import dev.splice.weigh.campaign.PluginRecords.CatalogEntry;
import dev.splice.weigh.campaign.PluginRecords.EncodingCount;
import dev.splice.weigh.campaign.PluginRecords.Footer;
import dev.splice.weigh.campaign.PluginRecords.Mode;
import dev.splice.weigh.campaign.PluginRecords.TimingWindow;
import dev.splice.weigh.campaign.PluginRecords.ValidationWindow;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;

/** Parses the plugin's line-based record text; every error names the source and line. */
final class PluginRecordsParser {
    /** The record format version this parser reads (the first line's number). */
    static final int FORMAT_VERSION = 1;

    private static final String[] FOOTER_KEYS = {
        "windows", "nested_starts", "inactive_stops", "translation_failures", "timer_failures",
        "open_windows", "vcpus", "translations"
    };

    private final String source;
    /** The text; line i is {@code text[starts[i], starts[i + 1] - 1)} (a formal run's records: 5.7 M lines, one String each would be 350 MB). */
    private final String text;
    private final int[] starts;
    private final int lineCount;
    private int next; // index of the next unread line

    PluginRecordsParser(String text, String source) {
        this.source = source;
        if (text.isEmpty()) {
            throw new BadInputException(source + ": empty record file (did the plugin run?)");
        }
        if (!text.endsWith("\n")) {
            throw new BadInputException(source + ": the last line is unterminated (truncated record file)");
        }
        this.text = text;
        int count = 0;
        for (int i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) {
            count++;
        }
        this.lineCount = count;
        this.starts = new int[count + 1];
        for (int i = 0, k = 1; k <= count; k++) {
            i = text.indexOf('\n', i) + 1;
            starts[k] = i;
        }
    }

    /** Line {@code i} (0-based), without its newline. */
    private String line(int i) {
        return text.substring(starts[i], starts[i + 1] - 1);
    }

    PluginRecords parse() {
        String[] magic = fields("splice-plugin-records", 2);
        int version = (int) number(magic[1], 1000);
        if (version != FORMAT_VERSION) {
            throw error("record format version " + version + " is not supported (this Splice reads version "
                    + FORMAT_VERSION + ")");
        }
        Mode mode = mode(fields("mode", 2)[1]);
        String[] api = fields("api", 3);
        int apiCurrent = (int) number(api[1], 1000);
        int apiMinimum = (int) number(api[2], 1000);
        String[] markers = fields("markers", 3);
        long startMarker = hex(markers[1], 0xffff_ffffL);
        long stopMarker = hex(markers[2], 0xffff_ffffL);
        String[] range = fields("range", 3);
        long minPc = hex(range[1], Long.MAX_VALUE);
        long maxPc = hex(range[2], Long.MAX_VALUE);
        if (minPc >= maxPc) {
            throw error("empty code range");
        }

        OptionalLong executed = OptionalLong.empty();
        List<ValidationWindow> validation = new ArrayList<>();
        List<TimingWindow> timing = new ArrayList<>();
        List<CatalogEntry> catalog = new ArrayList<>();
        List<Catalog.Block> blocks = new ArrayList<>();
        List<PluginRecords.TranslationBlock> translationBlocks = new ArrayList<>();
        Catalog.Dynamics dynamics = null;
        switch (mode) {
            case COUNT -> executed = OptionalLong.of(number(fields("insns", 2)[1], Long.MAX_VALUE));
            case VALIDATION -> {
                while (peekIs("window")) {
                    validation.add(validationWindow(validation.size()));
                }
            }
            case TIMING -> {
                while (peekIs("window")) {
                    timing.add(timingWindow(timing.size()));
                }
            }
            case CATALOG -> {
                catalog = catalog();
                if (peekIs("blocks")) {
                    blocks = blocks();
                }
                if (peekIs("tbs")) {
                    translationBlocks = translationBlocks();
                }
                if (peekIs("exits")) {
                    dynamics = dynamics();
                }
            }
        }
        Footer footer = footer();
        long windows = validation.size() + timing.size();
        if (footer.windows() != windows) {
            throw error("the footer counts " + footer.windows() + " windows, the file has " + windows);
        }
        long failedTimers = timing.stream().filter(TimingWindow::timerFailed).count();
        if (footer.timerFailures() < failedTimers) {
            throw error("the footer counts " + footer.timerFailures() + " timer failures, the windows "
                    + failedTimers);
        }
        fields("end", 1);
        if (next != lineCount) {
            next++;
            throw error("content after the end line");
        }
        return new PluginRecords(mode, apiCurrent, apiMinimum, startMarker, stopMarker, minPc, maxPc, executed,
                validation, timing, catalog, blocks, translationBlocks, dynamics, footer);
    }

    /**
     * The run's dynamics in catalog mode: {@code exits K}, K lines {@code e KIND COUNT}, then
     * {@code branches TAKEN NOT_TAKEN}, {@code lookups HITS MISSES}, {@code pages TOUCHED} and
     * {@code mispredicted BRANCHES} (both absent from older plugins' records), then {@code memory L LOADS STORES
     * STRIDED} (served by no level) and L lines {@code m LEVEL SIZE WAYS LINE LOADS STORES STRIDED}.
     */
    private Catalog.Dynamics dynamics() {
        long kinds = number(fields("exits", 2)[1], 64);
        List<Catalog.Exit> exits = new ArrayList<>();
        for (long i = 0; i < kinds; i++) {
            String[] e = fields("e", 3);
            exits.add(new Catalog.Exit(e[1], number(e[2], Long.MAX_VALUE)));
        }
        String[] b = fields("branches", 3);
        String[] l = fields("lookups", 3);
        long pages = peekIs("pages") ? number(fields("pages", 2)[1], Long.MAX_VALUE) : -1; // older plugins: none
        long mispredicted = peekIs("mispredicted") ? number(fields("mispredicted", 2)[1], Long.MAX_VALUE) : -1;
        String[] m = fields("memory", 5);
        long levels = number(m[1], 8);
        List<Catalog.CacheLevel> caches = new ArrayList<>();
        for (long i = 0; i < levels; i++) {
            String[] c = fields("m", 8, 9);
            if (c.length == 9 && !c[8].equals("ws")) {
                throw error("'m' line's ninth field is '" + abbreviate(c[8]) + "', expected 'ws' or none");
            }
            caches.add(new Catalog.CacheLevel((int) number(c[1], 8), number(c[2], Long.MAX_VALUE),
                    (int) number(c[3], 1 << 16), (int) number(c[4], 1 << 16), number(c[5], Long.MAX_VALUE),
                    number(c[6], Long.MAX_VALUE), number(c[7], Long.MAX_VALUE), c.length == 9));
        }
        return new Catalog.Dynamics(exits, number(b[1], Long.MAX_VALUE), number(b[2], Long.MAX_VALUE),
                number(l[1], Long.MAX_VALUE), number(l[2], Long.MAX_VALUE), caches,
                number(m[2], Long.MAX_VALUE), number(m[3], Long.MAX_VALUE), number(m[4], Long.MAX_VALUE), pages,
                mispredicted);
    }

    private ValidationWindow validationWindow(int expectedIndex) {
        String[] f = fields("window", 7);
        long index = number(f[1], Long.MAX_VALUE);
        checkIndex(index, expectedIndex);
        long startPc = hex(f[2], Long.MAX_VALUE);
        long stopPc = hex(f[3], Long.MAX_VALUE);
        long translations = number(f[4], Long.MAX_VALUE);
        long executed = number(f[5], Long.MAX_VALUE);
        long distinct = number(f[6], Long.MAX_VALUE);
        if (distinct > lineCount - next) {
            throw error("the window announces " + distinct + " encodings but the file has only "
                    + (lineCount - next) + " lines left");
        }
        EncodingCounts.Builder encodings = new EncodingCounts.Builder((int) distinct);
        long sum = 0;
        for (long i = 0; i < distinct; i++) {
            String[] e = fields("e", 4);
            int size = (int) number(e[2], 4);
            if (size != 2 && size != 4) {
                throw error("instruction size " + size + " (expected 2 or 4)");
            }
            long encoding = hex(e[1], size == 2 ? 0xffffL : 0xffff_ffffL);
            long count = number(e[3], Long.MAX_VALUE);
            if (count == 0) {
                throw error("an encoding with count 0");
            }
            // (size << 32 | encoding) orders by size, then encoding
            if (encodings.lastKey() >= ((long) size << 32 | encoding)) {
                throw error("encodings are not sorted by size, then encoding, without repeats");
            }
            if (count > Long.MAX_VALUE - sum) {
                throw error("the window's encoding counts overflow 64 bits");
            }
            sum += count;
            encodings.add(encoding, size, count);
        }
        if (sum != executed) {
            next--;
            throw error("the window's encoding counts sum to " + sum + ", its header says " + executed);
        }
        return new ValidationWindow(index, startPc, stopPc, translations, executed, encodings.build());
    }

    private List<CatalogEntry> catalog() {
        long distinct = number(fields("catalog", 2)[1], Long.MAX_VALUE);
        if (distinct > lineCount - next) {
            throw error("the catalog announces " + distinct + " encodings but the file has only "
                    + (lineCount - next) + " lines left");
        }
        List<CatalogEntry> entries = new ArrayList<>((int) distinct);
        for (long i = 0; i < distinct; i++) {
            String[] c = fields("c", 5);
            int size = (int) number(c[2], 4);
            if (size != 2 && size != 4) {
                throw error("instruction size " + size + " (expected 2 or 4)");
            }
            long encoding = hex(c[1], size == 2 ? 0xffffL : 0xffff_ffffL);
            long translated = number(c[3], Long.MAX_VALUE);
            long executedCount = number(c[4], Long.MAX_VALUE);
            if (translated == 0) {
                throw error("an encoding that was never translated");
            }
            if (!entries.isEmpty()) {
                CatalogEntry last = entries.get(entries.size() - 1);
                if (last.size() > size || (last.size() == size && last.encoding() >= encoding)) {
                    throw error("encodings are not sorted by size, then encoding, without repeats");
                }
            }
            entries.add(new CatalogEntry(encoding, size, translated, executedCount));
        }
        return entries;
    }

    /** The block kinds section of catalog mode: {@code blocks K}, then K lines {@code b KIND translated executed}. */
    private List<Catalog.Block> blocks() {
        long kinds = number(fields("blocks", 2)[1], Long.MAX_VALUE);
        if (kinds > lineCount - next) {
            throw error("the blocks line announces " + kinds + " kinds but the file has only "
                    + (lineCount - next) + " lines left");
        }
        List<Catalog.Block> out = new ArrayList<>();
        for (long i = 0; i < kinds; i++) {
            String[] b = fields("b", 4);
            if (out.stream().anyMatch(x -> x.kind().equals(b[1]))) {
                throw error("block kind '" + b[1] + "' appears twice");
            }
            out.add(new Catalog.Block(b[1], number(b[2], Long.MAX_VALUE), number(b[3], Long.MAX_VALUE)));
        }
        return out;
    }

    /**
     * The translated blocks of catalog mode: {@code tbs N}, then N lines {@code t KIND ENTERED COUNT}
     * followed by COUNT fields {@code ENCODING:SIZE:P1:P2:P3} (hex encoding; producer indices, -1 none).
     */
    private List<PluginRecords.TranslationBlock> translationBlocks() {
        long count = number(fields("tbs", 2)[1], Long.MAX_VALUE);
        if (count > lineCount - next) {
            throw error("the tbs line announces " + count + " blocks but the file has only "
                    + (lineCount - next) + " lines left");
        }
        List<PluginRecords.TranslationBlock> out = new ArrayList<>((int) count);
        for (long b = 0; b < count; b++) {
            String line = next < lineCount ? line(next) : "";
            String[] head = line.split(" ", 5);
            if (head.length < 4 || !head[0].equals("t")) {
                fields("t", 4);
            }
            next++;
            long n = number(head[3], 4096);
            String[] insns = head.length == 5 ? head[4].split(" ", -1) : new String[0];
            if (insns.length != n) {
                throw error("'t' line announces " + n + " instructions and has " + insns.length);
            }
            List<PluginRecords.BlockInstruction> list = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                String[] f = insns[i].split(":", -1);
                if (f.length != 5) {
                    throw error("instruction '" + insns[i] + "' is not ENCODING:SIZE:P1:P2:P3");
                }
                int size = (int) number(f[1], 4);
                if (size != 2 && size != 4) {
                    throw error("instruction size " + size + " (expected 2 or 4)");
                }
                List<Integer> producers = new ArrayList<>();
                for (int k = 2; k < 5; k++) {
                    if (!f[k].matches("-1|0|[1-9][0-9]{0,3}")) {
                        throw error("producer '" + abbreviate(f[k]) + "' is not -1 or an instruction index");
                    }
                    int p = Integer.parseInt(f[k]);
                    if (p >= i) {
                        throw error("instruction " + i + " names producer " + p);
                    }
                    if (p >= 0 && !producers.contains(p)) {
                        producers.add(p);
                    }
                }
                list.add(new PluginRecords.BlockInstruction(hex(f[0], size == 2 ? 0xffffL : 0xffff_ffffL), size,
                        producers));
            }
            out.add(new PluginRecords.TranslationBlock(head[1], number(head[2], Long.MAX_VALUE), list));
        }
        return out;
    }

    private TimingWindow timingWindow(int expectedIndex) {
        String[] f = fields("window", 8);
        long index = number(f[1], Long.MAX_VALUE);
        checkIndex(index, expectedIndex);
        long startPc = hex(f[2], Long.MAX_VALUE);
        long stopPc = hex(f[3], Long.MAX_VALUE);
        long startNs = number(f[4], Long.MAX_VALUE);
        long stopNs = number(f[5], Long.MAX_VALUE);
        long translations = number(f[6], Long.MAX_VALUE);
        boolean timerFailed = switch (f[7]) {
            case "ok" -> false;
            case "timer-failed" -> true;
            default -> throw error("window status '" + f[7] + "' (expected ok or timer-failed)");
        };
        if (!timerFailed && stopNs < startNs) {
            throw error("the stop time " + stopNs + " is before the start time " + startNs);
        }
        return new TimingWindow(index, startPc, stopPc, startNs, stopNs, translations, timerFailed);
    }

    private Footer footer() {
        String[] f = fields("footer", 1 + 2 * FOOTER_KEYS.length);
        long[] values = new long[FOOTER_KEYS.length];
        for (int i = 0; i < FOOTER_KEYS.length; i++) {
            if (!f[1 + 2 * i].equals(FOOTER_KEYS[i])) {
                throw error("footer field " + (i + 1) + " is '" + f[1 + 2 * i] + "', expected '" + FOOTER_KEYS[i] + "'");
            }
            values[i] = number(f[2 + 2 * i], Long.MAX_VALUE);
        }
        return new Footer(values[0], values[1], values[2], values[3], values[4], values[5], values[6], values[7]);
    }

    private void checkIndex(long index, int expected) {
        if (index != expected) {
            throw error("window index " + index + ", expected " + expected);
        }
    }

    private Mode mode(String name) {
        for (Mode m : Mode.values()) {
            if (m.argument().equals(name)) {
                return m;
            }
        }
        throw error("unknown mode '" + name + "' (expected count, validation, timing or catalog)");
    }

    private boolean peekIs(String keyword) {
        return next < lineCount && text.startsWith(keyword + " ", starts[next]); // no newline matches, so within the line
    }

    /** Consumes the next line, which must be {@code keyword} followed by exactly {@code count - 1} fields. */
    private String[] fields(String keyword, int count) {
        return fields(keyword, count, count);
    }

    /** A line of {@code keyword} and between {@code least} and {@code most} words in all. */
    private String[] fields(String keyword, int least, int most) {
        if (next >= lineCount) {
            throw new BadInputException(source + ": line " + (next + 1) + ": missing '" + keyword
                    + "' line (truncated record file)");
        }
        String line = line(next++);
        String[] f = line.split(" ", -1);
        if (!f[0].equals(keyword)) {
            throw error("expected a '" + keyword + "' line, found '" + abbreviate(line) + "'");
        }
        if (f.length < least || f.length > most) {
            throw error("'" + keyword + "' line has " + (f.length - 1) + " fields, expected " + (least - 1)
                    + (most == least ? "" : " to " + (most - 1)));
        }
        return f;
    }

    /** A non-negative decimal number not above {@code max}. */
    private long number(String text, long max) {
        if (text.isEmpty() || text.length() > 19 || !text.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw error("'" + abbreviate(text) + "' is not a decimal number");
        }
        // 19 digits can exceed Long.MAX_VALUE: compared as text, not parsed into an exception.
        if (text.length() == 19 && text.compareTo(Long.toString(Long.MAX_VALUE)) > 0) {
            throw error(text + " is out of range (at most " + max + ")");
        }
        long v = Long.parseLong(text);
        if (v > max) {
            throw error(v + " is out of range (at most " + max + ")");
        }
        return v;
    }

    /** A 0x-prefixed hexadecimal number not above {@code max}. */
    private long hex(String text, long max) {
        String digits = text.startsWith("0x") ? text.substring(2) : "";
        if (digits.isEmpty() || digits.length() > 16
                || !digits.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            throw error("'" + abbreviate(text) + "' is not a 0x-prefixed lower-case hexadecimal number");
        }
        long v = Long.parseUnsignedLong(digits, 16);
        if (Long.compareUnsigned(v, max) > 0) {
            throw error(text + " is out of range (at most 0x" + Long.toHexString(max) + ")");
        }
        return v;
    }

    private BadInputException error(String why) {
        return new BadInputException(source + ": line " + next + ": " + why);
    }

    private static String abbreviate(String s) {
        return s.length() <= 60 ? s : s.substring(0, 60) + "...";
    }
}
