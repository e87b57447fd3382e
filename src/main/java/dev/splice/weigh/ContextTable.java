package dev.splice.weigh;

import dev.splice.base.BadInputException;
import dev.splice.weigh.Context.Form;
import dev.splice.weigh.Context.Pattern;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The table of measurement contexts, read from the resource {@code contexts.tsv} (format in its
 * header comment and docs/contexts.md). Loading expands template rows ({@link RowExpander}) and
 * checks every row: known columns, unique keys, keys that start with the slot's mnemonic, existing
 * baselines without cycles.
 */
public final class ContextTable {
    /** The resource holding Splice's own table. */
    public static final String RESOURCE = "contexts.tsv";

    private static final List<String> COLUMNS =
            List.of("key", "mnemonic", "extension", "form", "pattern", "modifiers", "baseline", "qemu", "setup", "slot");
    private static final Set<String> EXTENSIONS =
            Set.of("i", "m", "a", "f", "d", "c", "zicsr", "zifencei", "zba", "zbb", "zbs", "zicond",
                    "zfh", "zbc", "zbkb", "zbkx", "v", "zknd", "zkne", "zknh", "zksed", "zksh", "zkr");
    private static final Set<String> MODIFIER_KEYS = Set.of("fflags", "rm", "csr", "order", "pred", "succ", "tcg",
            Context.PRIVILEGE, Context.SETUP, Context.CPU, "vtype",
            Context.HARTS, Context.WORKING_SET);

    // by label, looked up with plain loops: streams cost the cold loader more than the rows do
    private static final Map<String, Form> FORMS = new HashMap<>();
    private static final Map<String, Pattern> PATTERNS = new HashMap<>();
    /** Compiled once: String.split compiles a separator of more than one character on every call. */
    private static final java.util.regex.Pattern SETUP_SEPARATOR =
            java.util.regex.Pattern.compile(" ; ", java.util.regex.Pattern.LITERAL);

    static {
        for (Form f : Form.values()) {
            FORMS.put(f.label(), f);
        }
        for (Pattern p : Pattern.values()) {
            PATTERNS.put(p.label(), p);
        }
    }

    private final List<Context> contexts;
    private final Map<String, Context> byKey;

    private ContextTable(List<Context> contexts) {
        this.contexts = List.copyOf(contexts);
        Map<String, Context> m = new LinkedHashMap<>();
        for (Context c : contexts) {
            m.put(c.key(), c);
        }
        this.byKey = m;
    }

    /** Splice's own table once read: it is immutable, and the model and the mapper ask for it per call. */
    private static volatile ContextTable own;

    /**
     * Splice's own table (docs/contexts.md), parsed once per process.
     *
     * @return the table from the {@link #RESOURCE} resource
     */
    public static ContextTable load() {
        ContextTable table = own;
        if (table == null) {
            table = read();
            own = table;
        }
        return table;
    }

    private static ContextTable read() {
        try (InputStream in = ContextTable.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("resource " + RESOURCE + " is missing from the Splice jar");
            }
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), RESOURCE);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Parses table text; {@code source} names it in error messages. */
    static ContextTable parse(String text, String source) {
        List<Context> rows = new ArrayList<>();
        Map<String, Integer> lineOfKey = new HashMap<>();
        boolean header = false;
        String[] lines = text.split("\n", -1);
        RowExpander expander = RowExpander.NONE;
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            int lineNumber = i + 1;
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith(RowExpander.DIRECTIVE)) {
                expander = RowExpander.parse(line, source, lineNumber);
                continue;
            }
            if (line.equals(RowExpander.END)) {
                expander = RowExpander.NONE;
                continue;
            }
            if (!header) {
                if (!Arrays.asList(line.split("\t", -1)).equals(COLUMNS)) {
                    throw new BadInputException(source + ":" + lineNumber + ": expected the header line '"
                            + String.join("<TAB>", COLUMNS) + "'");
                }
                header = true;
                continue;
            }
            for (RowExpander.Row expanded : expander.expand(line, source, lineNumber)) {
                String[] f = expanded.text().split("\t", -1);
                Context c;
                try {
                    if (f.length != COLUMNS.size()) {
                        throw error(source, lineNumber, f.length + " columns, expected " + COLUMNS.size());
                    }
                    c = row(f, source, lineNumber);
                    if (lineOfKey.putIfAbsent(c.key(), lineNumber) != null) {
                        throw error(source, lineNumber, "key '" + c.key() + "' repeats line " + lineOfKey.get(c.key()));
                    }
                } catch (BadInputException e) {
                    throw expanded.where().isEmpty() ? e : new BadInputException(e.getMessage() + expanded.where());
                }
                rows.add(c);
            }
        }
        if (!header) {
            throw new BadInputException(source + ": no header line: not a context table");
        }
        checkBaselines(rows, lineOfKey, source);
        return new ContextTable(rows);
    }

    private static Context row(String[] f, String source, int line) {
        String key = f[0];
        String mnemonic = f[1];
        String slot = f[9];
        String slotMnemonic = slot.split(" ", 2)[0];
        if (slot.isBlank() || !slot.equals(slot.strip())) {
            throw error(source, line, "empty slot or slot with surrounding spaces");
        }
        if (!key.startsWith(slotMnemonic + ".") || key.length() == slotMnemonic.length() + 1) {
            throw error(source, line, "key '" + key + "' must be the slot's mnemonic '" + slotMnemonic
                    + "', a dot, and the pattern or modifiers");
        }
        if (mnemonic.isEmpty() || mnemonic.contains(" ")) {
            throw error(source, line, "bad mnemonic '" + mnemonic + "'");
        }
        if (!EXTENSIONS.contains(f[2])) {
            throw error(source, line, "unknown extension '" + f[2] + "'");
        }
        Form form = FORMS.get(f[3]);
        if (form == null) {
            throw error(source, line, "form '" + f[3] + "' (expected full or compressed)");
        }
        if ((form == Form.COMPRESSED) != mnemonic.startsWith("c.")) {
            throw error(source, line, "form " + form.label() + " does not match mnemonic " + mnemonic);
        }
        Pattern pattern = PATTERNS.get(f[4]);
        if (pattern == null) {
            throw error(source, line, "unknown pattern '" + f[4] + "'");
        }
        Map<String, String> modifiers = modifiers(f[5], source, line);
        Optional<String> baseline = f[6].equals("-") ? Optional.empty() : Optional.of(f[6]);
        if ((pattern == Pattern.BASELINE) != baseline.isEmpty()) {
            throw error(source, line, "exactly the rows with pattern 'baseline' have no baseline ('-')");
        }
        boolean runs = switch (f[7]) {
            case "yes" -> true;
            case "sigill", "system" -> false;
            default -> throw error(source, line, "qemu column '" + f[7] + "' (expected yes, sigill or system)");
        };
        if (modifiers.containsKey(Context.WORKING_SET) && !modifiers.get(Context.WORKING_SET).matches("[1-9][0-9]{0,17}")) {
            throw error(source, line, "'" + Context.WORKING_SET + "' must be a positive number of bytes, got '"
                    + modifiers.get(Context.WORKING_SET) + "'");
        }
        if (f[7].equals("system") != modifiers.containsKey(Context.PRIVILEGE)) {
            throw error(source, line, "exactly the rows with qemu 'system' have a '" + Context.PRIVILEGE + "' modifier");
        }
        List<String> setup = f[8].equals("-") ? List.of() : List.of(SETUP_SEPARATOR.split(f[8], -1));
        for (String s : setup) {
            if (s.isBlank()) {
                throw error(source, line, "empty setup line");
            }
        }
        return new Context(key, mnemonic, f[2], form, pattern, modifiers, baseline, runs, setup, slot);
    }

    private static Map<String, String> modifiers(String text, String source, int line) {
        Map<String, String> m = new LinkedHashMap<>();
        if (text.equals("-")) {
            return m;
        }
        for (String pair : text.split(";", -1)) {
            int eq = pair.indexOf('=');
            if (eq <= 0 || eq == pair.length() - 1) {
                throw error(source, line, "modifier '" + pair + "' is not key=value");
            }
            String k = pair.substring(0, eq);
            if (!MODIFIER_KEYS.contains(k)) {
                throw error(source, line, "unknown modifier '" + k + "' (expected one of " + MODIFIER_KEYS + ")");
            }
            if (m.put(k, pair.substring(eq + 1)) != null) {
                throw error(source, line, "modifier '" + k + "' given twice");
            }
        }
        return m;
    }

    /** Every baseline names a row, and following baselines always ends at a root baseline. */
    private static void checkBaselines(List<Context> rows, Map<String, Integer> lineOfKey, String source) {
        Map<String, Context> byKey = new HashMap<>();
        rows.forEach(c -> byKey.put(c.key(), c));
        for (Context c : rows) {
            Set<String> seen = new HashSet<>();
            Context at = c;
            while (at.baseline().isPresent()) {
                if (!seen.add(at.key())) {
                    throw error(source, lineOfKey.get(c.key()), "baseline references of '" + c.key() + "' form a cycle");
                }
                Context next = byKey.get(at.baseline().get());
                if (next == null) {
                    throw error(source, lineOfKey.get(at.key()), "baseline '" + at.baseline().get() + "' is not a key");
                }
                at = next;
            }
        }
    }

    private static BadInputException error(String source, int line, String why) {
        return new BadInputException(source + ":" + line + ": " + why);
    }

    /**
     * Every context.
     *
     * @return the contexts in table order
     */
    public List<Context> contexts() {
        return contexts;
    }

    /**
     * A context by key.
     *
     * @param key e.g. {@code div.dependency}
     * @return the context, or empty when the table has none with that key
     */
    public Optional<Context> context(String key) {
        return Optional.ofNullable(byKey.get(key));
    }

    /**
     * The contexts whose keys match any of the comma-separated glob patterns ({@code *} matches any
     * run of characters, {@code ?} one character), in table order; a pattern matching nothing is an error.
     *
     * @param patterns comma-separated globs, e.g. {@code div*,addi.*}
     * @return the matching contexts
     * @throws BadInputException for an empty pattern or one that matches nothing
     */
    public List<Context> select(String patterns) {
        List<java.util.regex.Pattern> globs = new ArrayList<>();
        for (String p : patterns.split(",", -1)) {
            String glob = p.strip();
            if (glob.isEmpty()) {
                throw new BadInputException("empty context pattern in '" + patterns + "'");
            }
            java.util.regex.Pattern regex = globToRegex(glob);
            if (contexts.stream().noneMatch(c -> regex.matcher(c.key()).matches())) {
                throw new BadInputException("context pattern '" + glob + "' matches no context");
            }
            globs.add(regex);
        }
        return contexts.stream().filter(c -> globs.stream().anyMatch(g -> g.matcher(c.key()).matches())).toList();
    }

    private static java.util.regex.Pattern globToRegex(String glob) {
        StringBuilder regex = new StringBuilder();
        for (char ch : glob.toCharArray()) {
            switch (ch) {
                case '*' -> regex.append(".*");
                case '?' -> regex.append('.');
                default -> regex.append(java.util.regex.Pattern.quote(String.valueOf(ch)));
            }
        }
        return java.util.regex.Pattern.compile(regex.toString());
    }
}
