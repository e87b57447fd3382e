package dev.splice.profile;

import dev.splice.base.BadInputException;
import java.io.IOException;
import java.io.InputStream;
import java.util.function.LongConsumer;

/**
 * Streams a profile text into a {@link ProfileTranslator}: perf2bolt's pre-aggregated format
 * ({@code B from to count mispreds}, {@code F|f from to count}, {@code S pc count},
 * {@code T branch from to count}, {@code E event}; addresses hex, optionally prefixed by a build-id
 * or file name and ':'), or {@code perf script -F ip,brstack} text. Reads bytes in large blocks and
 * parses without building strings per line; memory does not depend on the number of lines.
 */
final class ProfileReader {
    private final ProfileTranslation.InputFormat format;
    private final String source;
    private final boolean skipBadLines;
    private final LongConsumer progress;
    private long badLines;
    private BadLine firstBadLine;
    private long lines;

    // The current line is line[lineStart, length); pos is the parse position within it.
    private byte[] line = new byte[1 << 22];
    private int lineStart;
    private int length;
    private int pos;
    private long lineNumber;

    ProfileReader(ProfileTranslation.InputFormat format, String source, boolean skipBadLines, LongConsumer progress) {
        this.format = format;
        this.source = source;
        this.skipBadLines = skipBadLines;
        this.progress = progress;
    }

    public long badLines() {
        return badLines;
    }

    /** The first skipped line, or null. */
    public BadLine firstBadLine() {
        return firstBadLine;
    }

    /** A malformed line: its number within what this reader read, column and what was wrong. */
    public record BadLine(String source, long line, int column, String problem) {
        /** The message, with line numbers shifted by the lines read before this reader's part. */
        public String describe(long lineBase) {
            return source + ":" + (lineBase + line) + ":" + column + ": " + problem;
        }
    }

    /** Thrown for a malformed line when bad lines are not skipped. */
    public static final class BadLineException extends BadInputException {
        private static final long serialVersionUID = 1L;
        private final transient BadLine badLine;

        BadLineException(BadLine badLine) {
            super(badLine.describe(0));
            this.badLine = badLine;
        }

        public BadLine badLine() {
            return badLine;
        }
    }

    public long lines() {
        return lines;
    }

    /** Reads the whole stream, parsing lines in place in a large buffer (no copy per line). */
    public void read(InputStream in, ProfileTranslator sink) throws IOException {
        byte[] buffer = line;
        int filled = 0;
        int start = 0;
        boolean eof = false;
        while (true) {
            int nl = -1;
            for (int i = start; i < filled; i++) {
                if (buffer[i] == '\n') {
                    nl = i;
                    break;
                }
            }
            if (nl >= 0) {
                parseLine(sink, start, nl);
                start = nl + 1;
                continue;
            }
            if (eof) {
                if (start < filled) {
                    parseLine(sink, start, filled);
                }
                return;
            }
            // Move the partial line to the front, grow if a single line fills the buffer, read more.
            int partial = filled - start;
            if (partial == buffer.length) {
                if (buffer.length >= (1 << 26)) {
                    throw new BadInputException(source + ":" + (lineNumber + 1) + ": line longer than 64 MiB");
                }
                buffer = java.util.Arrays.copyOf(buffer, buffer.length * 2);
                line = buffer;
            } else if (start > 0) {
                System.arraycopy(buffer, start, buffer, 0, partial);
            }
            start = 0;
            filled = partial;
            int n = in.read(buffer, filled, buffer.length - filled);
            if (n < 0) {
                eof = true;
            } else {
                filled += n;
            }
        }
    }

    private void parseLine(ProfileTranslator sink, int start, int end) {
        lineNumber++;
        lines++;
        if (end > start && line[end - 1] == '\r') {
            end--;
        }
        lineStart = start;
        length = end;
        pos = start;
        try {
            if (format == ProfileTranslation.InputFormat.PRE_AGGREGATED) {
                preAggregated(sink);
            } else {
                perfScript(sink);
            }
        } catch (LineError e) {
            BadLine bad = new BadLine(source, lineNumber, e.column - lineStart + 1, e.getMessage());
            if (!skipBadLines) {
                throw new BadLineException(bad);
            }
            if (firstBadLine == null) {
                firstBadLine = bad;
            }
            badLines++;
        }
        if (progress != null && (lineNumber & 0xfffff) == 0) {
            progress.accept(lineNumber);
        }
    }

    /** A malformed line, with the column where it went wrong. */
    private static final class LineError extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int column;

        LineError(int column, String message) {
            super(message, null, false, false);
            this.column = column;
        }
    }

    private static final byte[] HEX = new byte[256];

    static {
        java.util.Arrays.fill(HEX, (byte) -1);
        for (int i = 0; i < 10; i++) {
            HEX['0' + i] = (byte) i;
        }
        for (int i = 0; i < 6; i++) {
            HEX['a' + i] = (byte) (10 + i);
            HEX['A' + i] = (byte) (10 + i);
        }
    }

    private void skipSpaces() {
        while (pos < length && (line[pos] == ' ' || line[pos] == '\t')) {
            pos++;
        }
    }

    private boolean atEnd() {
        skipSpaces();
        return pos >= length;
    }

    /** An address: hex digits, optionally after a "buildid:" or "name:" prefix. */
    private long address(String what) {
        skipSpaces();
        int start = pos;
        // Fast path, one pass: 1 to 16 hex digits up to a blank or the end of the line.
        long fast = 0;
        int end = pos;
        int stop = Math.min(length, pos + 16);
        while (end < stop) {
            int d = HEX[line[end] & 0xff];
            if (d < 0) {
                break;
            }
            fast = fast << 4 | d;
            end++;
        }
        if (end > start && (end == length || line[end] == ' ' || line[end] == '\t')) {
            pos = end;
            return fast;
        }
        end = pos;
        while (end < length && line[end] != ' ' && line[end] != '\t') {
            end++;
        }
        for (int i = start; i < end; i++) {
            if (line[i] == ':') {
                start = i + 1; // a build-id or file name prefix: perf2bolt ignores it
            }
        }
        pos = start;
        long v = hex(end, what);
        pos = end;
        return v;
    }

    private long hex(int end, String what) {
        if (pos >= end) {
            throw new LineError(pos, "expected " + what + " (hexadecimal address)");
        }
        if (end - pos > 16) {
            int i = pos;
            while (i < end - 16 && line[i] == '0') {
                i++;
            }
            if (end - i > 16) {
                throw new LineError(pos, what + " does not fit in 64 bits");
            }
        }
        long v = 0;
        for (int i = pos; i < end; i++) {
            int d = HEX[line[i] & 0xff];
            if (d < 0) {
                throw new LineError(i, "bad hexadecimal digit '" + (char) line[i] + "' in " + what);
            }
            v = v << 4 | d;
        }
        return v;
    }

    private long number(String what) {
        skipSpaces();
        int start = pos;
        long v = 0;
        while (pos < length && line[pos] >= '0' && line[pos] <= '9') {
            if (v > (Long.MAX_VALUE - 9) / 10) {
                throw new LineError(start, what + " too large");
            }
            v = v * 10 + (line[pos] - '0');
            pos++;
        }
        if (pos == start || pos < length && line[pos] != ' ' && line[pos] != '\t') {
            throw new LineError(pos, "expected " + what + " (decimal number)");
        }
        return v;
    }

    private void end() {
        if (!atEnd()) {
            throw new LineError(pos, "unexpected text at end of line");
        }
    }

    private void preAggregated(ProfileTranslator sink) {
        if (atEnd()) {
            return; // blank line
        }
        int typeColumn = pos;
        byte type = line[pos++];
        if (pos < length && line[pos] != ' ' && line[pos] != '\t') {
            throw new LineError(typeColumn, "expected record type B, F, f, S, T or E");
        }
        switch (type) {
            case 'B' -> {
                long from = address("branch source");
                long to = address("branch target");
                long count = number("count");
                long mispreds = number("misprediction count");
                end();
                sink.branch(from, to, count, mispreds);
            }
            case 'F', 'f' -> {
                long from = address("fall-through start");
                long to = address("fall-through end");
                long count = number("count");
                end();
                if (type == 'F') {
                    sink.fallthrough(from, to, count);
                } else {
                    sink.externalFallthrough(from, to, count);
                }
            }
            case 'S' -> {
                long pc = address("sample address");
                long count = number("count");
                end();
                sink.sample(pc, count);
            }
            case 'T' -> {
                long branch = address("branch source");
                long from = address("branch target");
                long to = address("fall-through end");
                long count = number("count");
                end();
                sink.trace(branch, from, to, count, 0);
            }
            case 'E' -> {
                skipSpaces();
                if (pos >= length) {
                    throw new LineError(pos, "expected an event name");
                }
                sink.eventName(new String(line, pos, length - pos, java.nio.charset.StandardCharsets.UTF_8).trim());
            }
            default -> throw new LineError(typeColumn, "expected record type B, F, f, S, T or E");
        }
    }

    /**
     * One perf script line: optional ip, then branch stack entries FROM/TO/FLAG/... newest first.
     * As perf2bolt does, each entry is a taken branch and the range from its target to the source of
     * the next newer entry is a fall-through trace; the newest entry has no trace.
     */
    private void perfScript(ProfileTranslator sink) {
        if (atEnd()) {
            return;
        }
        long newerFrom = -1;
        boolean first = true;
        while (!atEnd()) {
            int tokenStart = pos;
            int end = pos;
            while (end < length && line[end] != ' ' && line[end] != '\t') {
                end++;
            }
            int slash1 = indexOf('/', tokenStart, end);
            if (slash1 < 0) {
                if (!first) {
                    throw new LineError(tokenStart, "expected a branch stack entry FROM/TO/FLAGS");
                }
                pos = tokenStart;
                hexMaybe0x(end, "sample ip");
                pos = end;
                first = false;
                continue;
            }
            first = false;
            int slash2 = indexOf('/', slash1 + 1, end);
            if (slash2 < 0) {
                throw new LineError(tokenStart, "expected FROM/TO/FLAGS in a branch stack entry");
            }
            pos = tokenStart;
            long from = hexMaybe0x(slash1, "branch source");
            pos = slash1 + 1;
            long to = hexMaybe0x(slash2, "branch target");
            int flag = slash2 + 1 < end ? line[slash2 + 1] : -1;
            if (flag != 'P' && flag != 'M' && flag != '-') {
                throw new LineError(slash2 + 1, "expected 'P', 'M' or '-' as the prediction flag");
            }
            long mispred = flag == 'M' ? 1 : 0;
            if (newerFrom == -1) {
                sink.branch(from, to, 1, mispred);
            } else {
                sink.trace(from, to, newerFrom, 1, mispred);
            }
            newerFrom = from;
            pos = end;
        }
    }

    private long hexMaybe0x(int end, String what) {
        if (end - pos >= 2 && line[pos] == '0' && (line[pos + 1] == 'x' || line[pos + 1] == 'X')) {
            pos += 2;
        }
        return hex(end, what);
    }

    private int indexOf(int c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (line[i] == c) {
                return i;
            }
        }
        return -1;
    }
}
