package dev.splice.bat;

import dev.splice.BadInputException;
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
public final class ProfileReader {
    /** Which text format the input is in. */
    public enum Format { PRE_AGGREGATED, PERF_SCRIPT }

    private final Format format;
    private final String source;
    private final boolean skipBadLines;
    private final LongConsumer progress;
    private long badLines;
    private String firstBadLine;
    private long lines;

    // Current line.
    private byte[] line = new byte[256];
    private int length;
    private int pos;
    private long lineNumber;

    public ProfileReader(Format format, String source, boolean skipBadLines, LongConsumer progress) {
        this.format = format;
        this.source = source;
        this.skipBadLines = skipBadLines;
        this.progress = progress;
    }

    public long badLines() {
        return badLines;
    }

    /** The message of the first skipped line, or null. */
    public String firstBadLine() {
        return firstBadLine;
    }

    public long lines() {
        return lines;
    }

    public void read(InputStream in, ProfileTranslator sink) throws IOException {
        byte[] buffer = new byte[1 << 20];
        int n;
        while ((n = in.read(buffer)) > 0) {
            for (int i = 0; i < n; ) {
                int start = i;
                while (i < n && buffer[i] != '\n') {
                    i++;
                }
                append(buffer, start, i - start);
                if (i < n) {
                    i++;
                    endLine(sink);
                }
            }
        }
        if (length > 0) {
            endLine(sink);
        }
    }

    private void append(byte[] b, int off, int len) {
        if (length + len > line.length) {
            if (length + len > (1 << 24)) {
                throw new BadInputException(source + ":" + (lineNumber + 1) + ": line longer than 16 MiB");
            }
            line = java.util.Arrays.copyOf(line, Math.max(line.length * 2, length + len));
        }
        System.arraycopy(b, off, line, length, len);
        length += len;
    }

    private void endLine(ProfileTranslator sink) {
        lineNumber++;
        lines++;
        if (length > 0 && line[length - 1] == '\r') {
            length--;
        }
        pos = 0;
        try {
            if (format == Format.PRE_AGGREGATED) {
                preAggregated(sink);
            } else {
                perfScript(sink);
            }
        } catch (LineError e) {
            String message = source + ":" + lineNumber + ":" + (e.column + 1) + ": " + e.getMessage();
            if (!skipBadLines) {
                throw new BadInputException(message);
            }
            if (firstBadLine == null) {
                firstBadLine = message;
            }
            badLines++;
        }
        length = 0;
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
        int end = pos;
        while (end < length && line[end] != ' ' && line[end] != '\t') {
            end++;
        }
        for (int i = end - 1; i >= start; i--) {
            if (line[i] == ':') {
                start = i + 1;
                break;
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
        long v = 0;
        int digits = 0;
        for (int i = pos; i < end; i++) {
            int c = line[i];
            int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
            if (d < 0) {
                throw new LineError(i, "bad hexadecimal digit '" + (char) c + "' in " + what);
            }
            if (++digits > 16 && v >>> 60 != 0) {
                throw new LineError(pos, what + " does not fit in 64 bits");
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
