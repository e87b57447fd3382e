package dev.splice.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Derives a hostile input from a valid seed. The field-aware mutators know where the structure
 * is: ELF headers and table entries (counts, offsets, sizes, alignments, string indices, note
 * lengths), LEB128 runs, listing tokens and lines, JSON numbers and keys; each also applies plain
 * byte edits, so nothing is out of reach.
 */
@FunctionalInterface
interface Mutator {
    /**
     * An input derived from the seed.
     *
     * @param seed a valid input (not modified)
     * @param random the source of choices
     * @return the input
     */
    byte[] mutate(byte[] seed, Random random);

    /** Values that break arithmetic: zero, one, all ones, sign bits, 32-bit edges. */
    long[] INTERESTING = {0, 1, 2, 3, 4, 7, 8, 0x10, 0x40, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x10000,
        0x7fffffffL, 0x80000000L, 0xffffffffL, 0x100000000L, Long.MAX_VALUE, Long.MIN_VALUE, -1, -2, 0x4000_0000_0000_0000L};

    /** Plain byte edits: flips, interesting bytes, runs, copies, truncation. */
    static byte[] bytes(byte[] seed, Random r) {
        byte[] b = seed.clone();
        int edits = 1 + r.nextInt(4);
        for (int e = 0; e < edits && b.length > 0; e++) {
            int at = r.nextInt(b.length);
            switch (r.nextInt(6)) {
                case 0 -> b[at] ^= (byte) (1 << r.nextInt(8));
                case 1 -> b[at] = (byte) INTERESTING[r.nextInt(INTERESTING.length)];
                case 2 -> b[at] = (byte) r.nextInt(256);
                case 3 -> {
                    int from = r.nextInt(b.length);
                    int n = Math.min(1 + r.nextInt(16), Math.min(b.length - at, b.length - from));
                    System.arraycopy(b, from, b, at, n);
                }
                case 4 -> Arrays.fill(b, at, Math.min(b.length, at + 1 + r.nextInt(8)), (byte) (r.nextBoolean() ? 0xff : 0));
                default -> {
                    if (r.nextInt(4) == 0) {
                        b = Arrays.copyOf(b, at);
                    }
                }
            }
        }
        return b;
    }

    /** Writes a little-endian field of {@code width} bytes (if it fits). */
    static void put(byte[] b, long at, int width, long value) {
        for (int i = 0; i < width && at + i < b.length; i++) {
            b[(int) (at + i)] = (byte) (value >>> (8 * i));
        }
    }

    static long get(byte[] b, long at, int width) {
        long v = 0;
        for (int i = width - 1; i >= 0; i--) {
            v = v << 8 | (at + i < b.length ? b[(int) (at + i)] & 0xff : 0);
        }
        return v;
    }

    /** A value for a field: interesting, the file's length, near the old value, or random. */
    static long fieldValue(long old, int fileLength, Random r) {
        return switch (r.nextInt(5)) {
            case 0, 1 -> INTERESTING[r.nextInt(INTERESTING.length)];
            case 2 -> fileLength + r.nextInt(64) - 32;
            case 3 -> old + r.nextInt(33) - 16;
            default -> r.nextLong();
        };
    }

    /** A ULEB128 run of {@code n} continuation bytes and a last byte (a huge or overlong value). */
    static byte[] lebRun(Random r) {
        int n = 1 + r.nextInt(11);
        byte[] run = new byte[n + 1];
        for (int i = 0; i < n; i++) {
            run[i] = (byte) (0x80 | (r.nextBoolean() ? 0x7f : r.nextInt(128)));
        }
        run[n] = (byte) (r.nextBoolean() ? 0x7f : r.nextInt(128));
        return run;
    }

    /** Overwrites (or inserts) a LEB128 run somewhere in [from, to). */
    static byte[] withLebRun(byte[] seed, int from, int to, Random r) {
        if (to <= from) {
            return bytes(seed, r);
        }
        byte[] run = lebRun(r);
        int at = from + r.nextInt(to - from);
        if (r.nextBoolean()) {
            byte[] b = seed.clone();
            System.arraycopy(run, 0, b, at, Math.min(run.length, b.length - at));
            return b;
        }
        byte[] b = new byte[seed.length + run.length];
        System.arraycopy(seed, 0, b, 0, at);
        System.arraycopy(run, 0, b, at, run.length);
        System.arraycopy(seed, at, b, at + run.length, seed.length - at);
        return b;
    }

    /** Listing and record text: tokens, huge immediates, long lines, label chains, line edits. */
    static byte[] text(byte[] seed, Random r, List<String> tokens) {
        List<String> lines = new ArrayList<>(List.of(new String(seed, StandardCharsets.UTF_8).split("\n", -1)));
        int edits = 1 + r.nextInt(3);
        for (int e = 0; e < edits; e++) {
            int at = r.nextInt(lines.size());
            switch (r.nextInt(9)) {
                case 0 -> lines.remove(at);
                case 1 -> lines.add(at, lines.get(r.nextInt(lines.size())));
                case 2 -> Mutator.swap(lines, at, r.nextInt(lines.size()));
                case 3 -> lines.set(at, replaceToken(lines.get(at), tokens.get(r.nextInt(tokens.size())), r));
                case 4 -> lines.set(at, lines.get(at) + " " + tokens.get(r.nextInt(tokens.size())));
                case 5 -> lines.add(at, "x".repeat(1 + r.nextInt(200_000)));
                case 6 -> {
                    StringBuilder chain = new StringBuilder();
                    int n = 1 + r.nextInt(2000);
                    for (int i = 0; i < n; i++) {
                        chain.append("1:\n").append(r.nextBoolean() ? "j 1b\n" : "j 1f\n");
                    }
                    lines.add(at, chain.toString());
                }
                case 7 -> lines.set(at, NUMBER_TOKEN.matcher(lines.get(at)).replaceAll(Long.toString(r.nextLong())));
                default -> {
                    return bytes(String.join("\n", lines).getBytes(StandardCharsets.UTF_8), r);
                }
            }
            if (lines.isEmpty()) {
                lines.add("");
            }
        }
        return String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
    }

    static void swap(List<String> lines, int a, int b) {
        String t = lines.get(a);
        lines.set(a, lines.get(b));
        lines.set(b, t);
    }

    /** Replaces one whitespace- or comma-separated token of the line. */
    static String replaceToken(String line, String token, Random r) {
        String[] parts = TOKEN_EDGE.split(line);
        if (parts.length == 0) {
            return token;
        }
        parts[r.nextInt(parts.length)] = token;
        return String.join("", parts);
    }

    /** Tokens for listings and record text. */
    List<String> LISTING_TOKENS = List.of("0x7fffffffffffffff", "0xffffffffffffffffff", "-9223372036854775809",
            "99999999999999999999999", "-1", "0", "4096", "2147483648", "1b", "1f", "2f", "0:", "1:", ".L0", ".L0:",
            "\"a\nb\"", "%hi(x)", "%lo(0xffffffff)", "%pcrel_hi(1f)", ".region", ".section", ".text", ".byte", ".word",
            ".dword", ".half", ".balign", ".align 63", ".fill 4294967296", ".zero 1099511627776", ".org 0xffffffff",
            ".set", "x", "x+0x7fffffffffffffff", "x-1", "main+4", "a0", "zero", "f31", "v31", "ra", "sp", "(a0)",
            "jal", "li", "la", "call", "tail", "addi", "lui", "auipc", "beq", "c.j", "csrr", "vsetvli", ".target rv64gc",
            "#", ";", "\t", "\\", "\u00ff", "NaN", "Infinity");

    /** JSON and JSON lines: hostile numbers, missing and duplicate keys, truncation, then text edits. */
    static byte[] json(byte[] seed, Random r) {
        String s = new String(seed, StandardCharsets.UTF_8);
        int edits = 1 + r.nextInt(3);
        for (int e = 0; e < edits && !s.isEmpty(); e++) {
            switch (r.nextInt(6)) {
                case 0 -> s = replaceNth(s, JSON_NUMBER, JSON_NUMBERS.get(r.nextInt(JSON_NUMBERS.size())), r);
                case 1 -> s = replaceNth(s, JSON_MEMBER, "", r);
                case 2 -> {
                    java.util.regex.Matcher m = JSON_MEMBER_WITH_COMMA.matcher(s);
                    if (m.find()) {
                        s = s.substring(0, m.end()) + m.group() + s.substring(m.end());
                    }
                }
                case 3 -> s = s.substring(0, r.nextInt(s.length()));
                case 4 -> s = replaceNth(s, JSON_STRING, JSON_STRINGS.get(r.nextInt(JSON_STRINGS.size())), r);
                default -> s = new String(text(s.getBytes(StandardCharsets.UTF_8), r, JSON_NUMBERS), StandardCharsets.UTF_8);
            }
        }
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The patterns the mutations match, compiled once. */
    java.util.regex.Pattern NUMBER_TOKEN = java.util.regex.Pattern.compile("[0-9a-fx]+");
    /** Where a line splits into tokens: around whitespace, commas and parentheses. */
    java.util.regex.Pattern TOKEN_EDGE = java.util.regex.Pattern.compile("(?<=[\\s,()])|(?=[\\s,()])");
    /** A JSON number. */
    java.util.regex.Pattern JSON_NUMBER = java.util.regex.Pattern.compile("-?[0-9][0-9.eE+-]*");
    /** A JSON object member, with its comma if it has one. */
    java.util.regex.Pattern JSON_MEMBER = java.util.regex.Pattern.compile("\"[a-z_]+\"\\s*:\\s*[^,}\\]]*,?");
    /** A JSON object member followed by a comma. */
    java.util.regex.Pattern JSON_MEMBER_WITH_COMMA = java.util.regex.Pattern.compile("\"[a-z_]+\"\\s*:\\s*[^,}\\]]*,");
    /** A JSON string. */
    java.util.regex.Pattern JSON_STRING = java.util.regex.Pattern.compile("\"[^\"]*\"");

    /** Numbers JSON readers meet in hostile files. */
    List<String> JSON_NUMBERS = List.of("NaN", "Infinity", "-Infinity", "1e309", "-1e309", "1e-400", "-1", "-0",
            "9223372036854775808", "-9223372036854775809", "184467440737095516150", "2147483648", "4294967296",
            "0.5", "1e18", "null", "true", "\"1\"", "[]", "{}");

    /** Strings JSON readers meet in hostile files. */
    List<String> JSON_STRINGS = List.of("\"\"", "\"\\u0000\"", "\"a\\nb\"", "\"x\"", "\"" + "y".repeat(5000) + "\"", "1", "null");

    /** Replaces one randomly chosen match of the pattern. */
    static String replaceNth(String s, java.util.regex.Pattern pattern, String with, Random r) {
        java.util.regex.Matcher m = pattern.matcher(s);
        List<int[]> spans = new ArrayList<>();
        while (m.find() && spans.size() < 10_000) {
            spans.add(new int[] {m.start(), m.end()});
        }
        if (spans.isEmpty()) {
            return s;
        }
        int[] span = spans.get(r.nextInt(spans.size()));
        return s.substring(0, span[0]) + with + s.substring(span[1]);
    }
}
