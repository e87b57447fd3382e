package dev.splice.weigh.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.AtomicFiles;
import dev.splice.base.BadInputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * An instruction-class catalog: semantic keys with how often they occur (docs/formats.md, "Program
 * catalogs" and "Catalogs"). {@code splice weigh catalog} writes it ({@link #toJson()}),
 * {@code splice weigh map} reads it ({@link #read(Path)}).
 *
 * <p>Accepted forms: JSON with an array of objects under {@code classes} (or {@code keys},
 * {@code entries}, or as the root), each with {@code key} and optional counts {@code executed},
 * {@code translated}, {@code count}, {@code encodings} and {@code extension}; or CSV lines
 * {@code key,count} with an optional header and {@code #} comments. Keys are unique. A JSON catalog
 * may give block counts under {@code blocks} (objects with {@code kind}, {@code translated},
 * {@code executed}).
 *
 * @param origin the program run the catalog was taken from, or null when the catalog does not say
 * @param entries the classes, in file order
 * @param blocks executed translation blocks by kind (the plugin's catalog mode), empty when the
 *     catalog does not give them
 * @param translatedBlocks the dependence structure of the translated blocks (the plugin's catalog
 *     mode), identical ones merged; empty when the catalog does not give it
 * @param dynamics how the run left its blocks and what served its memory accesses (the plugin's
 *     catalog mode), or null when the catalog does not give it
 */
public record Catalog(Origin origin, List<Entry> entries, List<Block> blocks, List<TranslatedBlock> translatedBlocks,
        Dynamics dynamics) {
    /** The schema name and version written. */
    public static final String SCHEMA = "splice.weigh.catalog/1";

    /**
     * Copies the entries.
     *
     * @param origin see {@link #origin()}
     * @param entries see {@link #entries()}
     * @param blocks see {@link #blocks()}
     * @param translatedBlocks see {@link #translatedBlocks()}
     * @param dynamics see {@link #dynamics()}
     */
    public Catalog {
        entries = List.copyOf(entries);
        blocks = List.copyOf(blocks);
        translatedBlocks = List.copyOf(translatedBlocks);
    }

    /**
     * A catalog without the run's dynamics.
     *
     * @param origin see {@link #origin()}
     * @param entries see {@link #entries()}
     * @param blocks see {@link #blocks()}
     * @param translatedBlocks see {@link #translatedBlocks()}
     */
    public Catalog(Origin origin, List<Entry> entries, List<Block> blocks, List<TranslatedBlock> translatedBlocks) {
        this(origin, entries, blocks, translatedBlocks, null);
    }

    /**
     * What the plugin saw the run do beyond its counts (issue 12, prediction): how it left its blocks,
     * whether the lookups of the next block hit QEMU's jump cache, and which level of a model of the
     * host's data caches served each load and store.
     *
     * @param exits per block kind, the exits taken that way: a chained kind's exit to a block on
     *     another page counts under its {@code -far} kind (QEMU looked the next block up), one to a
     *     block on the page of the block's start under the near kind (chained)
     * @param branchesTaken chained branch exits ({@code branch}) that were taken
     * @param branchesNotTaken chained branch exits that fell through
     * @param lookupHits lookups of the next block (indirect exits, returns, far exits, exits to the
     *     main loop) that a model of QEMU 7.2's user-mode jump cache held
     * @param lookupMisses lookups it did not hold (QEMU then searches its hash table)
     * @param caches the modelled cache levels, innermost first, with the accesses each served
     * @param loadsFromMemory loads that no level held
     * @param storesToMemory stores that no level held
     * @param stridedFromMemory of {@code loadsFromMemory}, those their instruction's stride predicts
     *     (see {@link CacheLevel#strided()})
     * @param touchedPages the guest pages the run's loads and stores touched (each a host page fault
     *     the first time), or -1 when the catalog does not say (an older plugin's)
     * @param mispredictedBranches the conditional branches (chained or not) that a model of the host's
     *     branch predictor mispredicted, or -1 when the catalog does not say (an older plugin's)
     */
    public record Dynamics(List<Exit> exits, long branchesTaken, long branchesNotTaken, long lookupHits,
            long lookupMisses, List<CacheLevel> caches, long loadsFromMemory, long storesToMemory,
            long stridedFromMemory, long touchedPages, long mispredictedBranches) {
        /**
         * Copies the lists.
         *
         * @param exits see {@link #exits()}
         * @param branchesTaken see {@link #branchesTaken()}
         * @param branchesNotTaken see {@link #branchesNotTaken()}
         * @param lookupHits see {@link #lookupHits()}
         * @param lookupMisses see {@link #lookupMisses()}
         * @param caches see {@link #caches()}
         * @param loadsFromMemory see {@link #loadsFromMemory()}
         * @param storesToMemory see {@link #storesToMemory()}
         * @param stridedFromMemory see {@link #stridedFromMemory()}
         * @param touchedPages see {@link #touchedPages()}
         * @param mispredictedBranches see {@link #mispredictedBranches()}
         */
        public Dynamics {
            exits = List.copyOf(exits);
            caches = List.copyOf(caches);
        }

        /**
         * Whether the catalog counts the pages the run touched.
         *
         * @return false for a catalog of an older plugin
         */
        public boolean countsPages() {
            return touchedPages >= 0;
        }

        /**
         * Whether the catalog counts the branches the model of the host's predictor mispredicted.
         *
         * @return false for a catalog of an older plugin
         */
        public boolean countsMispredictions() {
            return mispredictedBranches >= 0;
        }
    }

    /**
     * Exits of one block kind taken one way.
     *
     * @param kind a {@link Block} kind
     * @param count how many
     */
    public record Exit(String kind, long count) {}

    /**
     * One modelled level of the host's data caches (its geometry read from sysfs by the plugin).
     *
     * @param level the cache level (1 for L1)
     * @param sizeBytes capacity
     * @param ways associativity
     * @param lineBytes line size
     * @param loads loads it served (every inner level missed)
     * @param stores stores it served
     * @param strided of {@code loads}, those their instruction's stride predicts: to the line of its
     *     last access or the next, or one unchanged stride of under a page on (what the host's
     *     prefetchers fetch ahead)
     * @param workingSet true for a level the host does not describe: one of the pointer-chase
     *     contexts' working sets beyond the host's last known level (docs/weigh-model.md)
     */
    public record CacheLevel(int level, long sizeBytes, int ways, int lineBytes, long loads, long stores,
            long strided, boolean workingSet) {}

    /**
     * A catalog without the blocks' dependence structure.
     *
     * @param origin see {@link #origin()}
     * @param entries see {@link #entries()}
     * @param blocks see {@link #blocks()}
     */
    public Catalog(Origin origin, List<Entry> entries, List<Block> blocks) {
        this(origin, entries, blocks, List.of());
    }

    /**
     * A translated block's dependence structure: which instruction classes it runs, in order, and
     * for each which earlier instructions of the block produce what it reads.
     *
     * @param kind how the block ends (a {@link Block} kind)
     * @param entered how many times blocks of this structure were entered
     * @param keys the class key of each instruction
     * @param producers for each instruction, the indices of its producers (each smaller than its own)
     */
    public record TranslatedBlock(String kind, long entered, List<String> keys, List<List<Integer>> producers) {
        /**
         * Copies the lists.
         *
         * @param kind see {@link #kind()}
         * @param entered see {@link #entered()}
         * @param keys see {@link #keys()}
         * @param producers see {@link #producers()}
         */
        public TranslatedBlock {
            keys = List.copyOf(keys);
            producers = producers.stream().map(List::copyOf).toList();
        }
    }

    /**
     * A catalog without block counts.
     *
     * @param origin see {@link #origin()}
     * @param entries see {@link #entries()}
     */
    public Catalog(Origin origin, List<Entry> entries) {
        this(origin, entries, List.of());
    }

    /**
     * A catalog that does not say where it comes from.
     *
     * @param entries the classes
     */
    public Catalog(List<Entry> entries) {
        this(null, entries);
    }

    /**
     * One class. Counts are -1 where the catalog does not say.
     *
     * @param key semantic key, e.g. {@code div}, {@code fdiv.d}, {@code csrrs.fflags}, {@code fence.rw-rw}
     * @param extension the decoder's extension ({@code i}, {@code m}, {@code zicsr}, ...; {@code system}
     *     for {@code ecall}/{@code ebreak}), or null
     * @param translated instruction slots QEMU translated (a slot translated again counts again)
     * @param executed dynamic executions
     * @param count any other count
     * @param encodings distinct raw encodings in the class
     */
    public record Entry(String key, String extension, long translated, long executed, long count, int encodings) {}

    /**
     * Translation blocks of one kind, by how the block ends (docs/qemu-plugin.md, catalog mode):
     * {@code direct}, {@code call}, {@code branch} (and their {@code -far} forms, leaving for another
     * guest page), {@code indirect}, {@code indirect-call}, {@code return}, {@code fallthrough},
     * {@code fallthrough-far}, {@code exit}.
     *
     * @param kind the kind's name
     * @param translated blocks of this kind QEMU translated
     * @param executed times a block of this kind was left through its last instruction
     */
    public record Block(String kind, long translated, long executed) {}

    /**
     * The program run a catalog was taken from.
     *
     * @param program the program's path as given
     * @param args its arguments
     * @param exitCode its exit status
     * @param translationBlocks translation blocks QEMU created during the run
     */
    public record Origin(String program, List<String> args, int exitCode, long translationBlocks) {
        /**
         * Copies the arguments.
         *
         * @param program see {@link #program()}
         * @param args see {@link #args()}
         * @param exitCode see {@link #exitCode()}
         * @param translationBlocks see {@link #translationBlocks()}
         */
        public Origin {
            args = List.copyOf(args);
        }
    }

    /**
     * Dynamic executions of all classes that give them.
     *
     * @return the sum of the known {@link Entry#executed()} counts
     */
    public long executed() {
        return entries.stream().mapToLong(Entry::executed).filter(v -> v >= 0).sum();
    }

    /**
     * Translated slots of all classes that give them.
     *
     * @return the sum of the known {@link Entry#translated()} counts
     */
    public long translated() {
        return entries.stream().mapToLong(Entry::translated).filter(v -> v >= 0).sum();
    }

    /**
     * The catalog as JSON: {@code schema}, the origin ({@code program, args, exit_code}, the totals
     * {@code executed, translated}, {@code translation_blocks}) when known, then {@code classes} with
     * the counts each entry gives.
     *
     * @return indented JSON, newline at the end
     */
    public String toJson() {
        ObjectNode root = Json.object();
        root.put("schema", SCHEMA);
        if (origin != null) {
            root.put("program", origin.program());
            Json.putTexts(root, "args", origin.args());
            root.put("exit_code", origin.exitCode());
            root.put("executed", executed());
            root.put("translated", translated());
            root.put("translation_blocks", origin.translationBlocks());
        }
        ArrayNode list = root.putArray("classes");
        for (Entry e : entries) {
            ObjectNode n = list.addObject();
            n.put("key", e.key());
            if (e.extension() != null) {
                n.put("extension", e.extension());
            }
            putCount(n, "translated", e.translated());
            putCount(n, "executed", e.executed());
            putCount(n, "count", e.count());
            putCount(n, "encodings", e.encodings());
        }
        if (!blocks.isEmpty()) {
            ArrayNode kinds = root.putArray("blocks");
            for (Block b : blocks) {
                kinds.addObject().put("kind", b.kind()).put("translated", b.translated()).put("executed", b.executed());
            }
        }
        if (dynamics != null) {
            ArrayNode exits = root.putArray("exits");
            dynamics.exits().forEach(e -> exits.addObject().put("kind", e.kind()).put("count", e.count()));
            ObjectNode branches = root.putObject("branches").put("taken", dynamics.branchesTaken())
                    .put("not_taken", dynamics.branchesNotTaken());
            if (dynamics.countsMispredictions()) {
                branches.put("mispredicted", dynamics.mispredictedBranches());
            }
            root.putObject("lookups").put("hits", dynamics.lookupHits()).put("misses", dynamics.lookupMisses());
            if (dynamics.countsPages()) {
                root.putObject("pages").put("touched", dynamics.touchedPages());
            }
            ObjectNode memory = root.putObject("memory");
            memory.put("loads_from_memory", dynamics.loadsFromMemory()).put("stores_to_memory", dynamics.storesToMemory())
                    .put("strided_loads_from_memory", dynamics.stridedFromMemory());
            ArrayNode levels = memory.putArray("levels");
            for (CacheLevel c : dynamics.caches()) {
                levels.addObject().put("level", c.level()).put("size_bytes", c.sizeBytes()).put("ways", c.ways())
                        .put("line_bytes", c.lineBytes()).put("loads", c.loads()).put("stores", c.stores())
                        .put("strided_loads", c.strided()).put("working_set", c.workingSet());
            }
        }
        if (!translatedBlocks.isEmpty()) {
            ArrayNode tbs = root.putArray("translated_blocks");
            for (TranslatedBlock t : translatedBlocks) {
                ObjectNode n = tbs.addObject().put("kind", t.kind()).put("entered", t.entered());
                Json.putTexts(n, "keys", t.keys());
                ArrayNode ps = n.putArray("producers");
                for (List<Integer> p : t.producers()) {
                    ArrayNode a = ps.addArray();
                    p.forEach(a::add);
                }
            }
        }
        return Json.file(root);
    }

    private static void putCount(ObjectNode n, String field, long v) {
        if (v >= 0) {
            n.put(field, v);
        }
    }

    /**
     * Writes the catalog as JSON through a temporary file and a rename.
     *
     * @param file the catalog file
     */
    public void write(Path file) {
        AtomicFiles.write(file, toJson());
    }

    /**
     * Reads a catalog in any accepted form.
     *
     * @param file a JSON or CSV catalog
     * @return the catalog
     * @throws BadInputException on malformed input (with file and line or entry) or a repeated key
     */
    public static Catalog read(Path file) {
        String text = dev.splice.base.InputFiles.readString(file);
        String t = text.stripLeading();
        Catalog c = t.startsWith("{") || t.startsWith("[") ? json(file, text) : csv(file, text);
        Set<String> seen = new HashSet<>();
        for (Entry e : c.entries()) {
            if (!seen.add(e.key())) {
                throw new BadInputException(file + ": key '" + e.key() + "' appears twice");
            }
        }
        return c;
    }

    private static Catalog json(Path file, String text) {
        JsonNode root = Json.parse(file, text);
        JsonNode array = root;
        if (root.isObject()) {
            array = null;
            for (String f : new String[] {"classes", "keys", "entries"}) {
                if (root.path(f).isArray()) {
                    array = root.get(f);
                    break;
                }
            }
            if (array == null) {
                throw new BadInputException(file + ": catalog object has no 'classes', 'keys' or 'entries' array");
            }
        }
        List<Entry> out = new ArrayList<>();
        int i = 0;
        for (JsonNode e : array) {
            String where = file + ": entry " + i++;
            if (!e.isObject() || !e.path("key").isTextual() || e.get("key").asText().isEmpty()) {
                throw new BadInputException(where + ": needs a non-empty string 'key'");
            }
            long executed = count(e, "executed", where);
            long translated = count(e, "translated", where);
            long count = count(e, "count", where);
            JsonNode encodings = e.path("encodings");
            out.add(new Entry(e.get("key").asText(), Json.text(e, "extension"), translated, executed, count,
                    encodings.isIntegralNumber() && encodings.canConvertToInt() && encodings.asInt() >= 0
                            ? encodings.asInt() : -1));
        }
        return new Catalog(origin(root), out, blocks(file, root.path("blocks")),
                translatedBlocks(file, root.path("translated_blocks")), dynamics(file, root));
    }

    /** The run's dynamics when the catalog gives them (exits, branches, lookups and memory, all four). */
    private static Dynamics dynamics(Path file, JsonNode root) {
        if (!root.has("exits")) {
            return null;
        }
        String where = file + ": exits, branches, lookups and memory";
        JsonNode branches = root.path("branches");
        JsonNode lookups = root.path("lookups");
        JsonNode memory = root.path("memory");
        if (!root.get("exits").isArray() || !branches.isObject() || !lookups.isObject() || !memory.isObject()
                || !memory.path("levels").isArray()) {
            throw new BadInputException(where + ": need an 'exits' array, 'branches' and 'lookups' objects and a "
                    + "'memory' object with 'levels'");
        }
        List<Exit> exits = new ArrayList<>();
        for (JsonNode e : root.get("exits")) {
            if (!e.path("kind").isTextual()) {
                throw new BadInputException(where + ": an exit needs a string 'kind'");
            }
            exits.add(new Exit(e.get("kind").asText(), Math.max(0, count(e, "count", where))));
        }
        List<CacheLevel> levels = new ArrayList<>();
        for (JsonNode c : memory.get("levels")) {
            levels.add(new CacheLevel((int) Math.max(0, count(c, "level", where)), Math.max(0, count(c, "size_bytes", where)),
                    (int) Math.max(0, count(c, "ways", where)), (int) Math.max(0, count(c, "line_bytes", where)),
                    Math.max(0, count(c, "loads", where)), Math.max(0, count(c, "stores", where)),
                    Math.max(0, count(c, "strided_loads", where)), c.path("working_set").asBoolean(false)));
        }
        return new Dynamics(exits, Math.max(0, count(branches, "taken", where)),
                Math.max(0, count(branches, "not_taken", where)), Math.max(0, count(lookups, "hits", where)),
                Math.max(0, count(lookups, "misses", where)),
                levels, Math.max(0, count(memory, "loads_from_memory", where)),
                Math.max(0, count(memory, "stores_to_memory", where)),
                Math.max(0, count(memory, "strided_loads_from_memory", where)),
                root.has("pages") ? count(root.get("pages"), "touched", where) : -1,
                branches.has("mispredicted") ? count(branches, "mispredicted", where) : -1);
    }

    private static List<TranslatedBlock> translatedBlocks(Path file, JsonNode array) {
        List<TranslatedBlock> out = new ArrayList<>();
        int i = 0;
        for (JsonNode t : array) {
            String where = file + ": translated block " + i++;
            JsonNode keys = t.path("keys");
            JsonNode producers = t.path("producers");
            if (!t.path("kind").isTextual() || !keys.isArray() || !producers.isArray() || keys.size() != producers.size()) {
                throw new BadInputException(where + ": needs 'kind', and 'keys' and 'producers' arrays of one length");
            }
            List<String> k = new ArrayList<>();
            List<List<Integer>> p = new ArrayList<>();
            for (int j = 0; j < keys.size(); j++) {
                k.add(keys.get(j).asText());
                List<Integer> q = new ArrayList<>();
                for (JsonNode x : producers.get(j)) {
                    if (!x.canConvertToInt() || x.asInt() < 0 || x.asInt() >= j) {
                        throw new BadInputException(where + ": instruction " + j + " names producer " + x);
                    }
                    q.add(x.asInt());
                }
                p.add(q);
            }
            out.add(new TranslatedBlock(t.get("kind").asText(), Math.max(0, count(t, "entered", where)), k, p));
        }
        return out;
    }

    private static List<Block> blocks(Path file, JsonNode array) {
        List<Block> out = new ArrayList<>();
        Set<String> kinds = new HashSet<>();
        int i = 0;
        for (JsonNode b : array) {
            String where = file + ": block kind " + i++;
            if (!b.path("kind").isTextual() || !kinds.add(b.get("kind").asText())) {
                throw new BadInputException(where + ": needs a string 'kind' that no other block entry has");
            }
            out.add(new Block(b.get("kind").asText(), Math.max(0, count(b, "translated", where)),
                    Math.max(0, count(b, "executed", where))));
        }
        return out;
    }

    /** The origin when the catalog names its program (read leniently: it is informational). */
    private static Origin origin(JsonNode root) {
        if (!root.path("program").isTextual()) {
            return null;
        }
        return new Origin(root.get("program").asText(), Json.texts(root.path("args")), root.path("exit_code").asInt(),
                root.path("translation_blocks").asLong());
    }

    private static long count(JsonNode e, String field, String where) {
        JsonNode v = e.get(field);
        if (v == null || v.isNull()) {
            return -1;
        }
        if (!v.canConvertToLong() || !v.isIntegralNumber() || v.asLong() < 0) {
            throw new BadInputException(where + ": '" + field + "' must be a non-negative integer, got " + v);
        }
        return v.asLong();
    }

    private static Catalog csv(Path file, String text) {
        List<Entry> out = new ArrayList<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.split(",", -1);
            if (i == 0 && f.length == 2 && f[0].strip().equals("key")) {
                continue;
            }
            if (f.length != 2 || f[0].strip().isEmpty()) {
                throw new BadInputException(file + ":" + (i + 1) + ": expected 'key,count', got '" + line + "'");
            }
            long count;
            try {
                count = Long.parseLong(f[1].strip());
            } catch (NumberFormatException e) {
                throw new BadInputException(file + ":" + (i + 1) + ": count '" + f[1].strip() + "' is not an integer");
            }
            if (count < 0) {
                throw new BadInputException(file + ":" + (i + 1) + ": negative count " + count);
            }
            out.add(new Entry(f[0].strip(), null, -1, -1, count, -1));
        }
        return new Catalog(out);
    }
}
