package dev.splice.bat;

import dev.splice.elf.ElfFile;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A readable view of a binary's tables: per hot function (named from the symbol table) its output
 * address, hash, block count, entries, secondary entry points and cold fragments.
 */
public final class BatDump {
    private BatDump() {}

    /**
     * One entry: output offset, input offset, branch mark, whether it starts an input block, and for a
     * non-branch entry the block index and hash the table stores (0 and 0x0 where it is no block start,
     * as BOLT writes them).
     *
     * @param outputOffset the output offset, from the fragment's output address
     * @param inputOffset the input offset, in the (parent's) input function
     * @param branch whether the entry marks a branch or call source (BOLT's BRANCHENTRY bit)
     * @param blockStart whether the entry starts an input basic block
     * @param blockIndex the stored block index of a non-branch entry; null for a branch
     * @param blockHash the stored block hash of a non-branch entry, as {@code 0x} hex; null for a branch
     */
    public record Entry(long outputOffset, long inputOffset, boolean branch, boolean blockStart, Long blockIndex,
                        String blockHash) {}

    /**
     * A cold fragment of a hot function.
     *
     * @param name the symbol at the fragment's output address, or null when there is none
     * @param address the fragment's output address
     * @param entries the fragment's entries, in table order
     */
    public record ColdFragment(String name, long address, List<Entry> entries) {}

    /**
     * A hot function, with its cold fragments.
     *
     * @param name the function symbol at the output address, or null when BOLT left none
     * @param address the function's output address
     * @param hash the input function's hash, as {@code 0x} hex
     * @param blockCount the input function's basic block count
     * @param entries the main fragment's entries, in table order
     * @param secondaryEntryPoints the input offsets of the secondary entry points, in table order
     * @param coldFragments the function's cold fragments, in table order
     */
    public record Function(String name, long address, String hash, long blockCount, List<Entry> entries,
                           List<Long> secondaryEntryPoints, List<ColdFragment> coldFragments) {}

    /**
     * The whole dump of one binary's tables.
     *
     * @param binary the binary's name, as the first line of the dump shows it
     * @param hotFunctions the number of hot functions in the table
     * @param coldFragments the number of cold fragments in the table
     * @param functions the hot functions, in table order
     */
    public record Dump(String binary, int hotFunctions, int coldFragments, List<Function> functions) {}

    /**
     * The dump of a BOLTed binary's tables, with the function names of its symbol table.
     *
     * @param elf a binary written by {@code llvm-bolt --enable-bat}
     * @return the dump
     * @throws dev.splice.base.BadInputException if the binary has no tables or they are malformed
     */
    public static Dump of(ElfFile elf) {
        Map<Long, String> names = new HashMap<>();
        for (dev.splice.elf.Symbol s : elf.symbols()) {
            if (s.isFunction() && s.isDefinedInSection()) {
                names.merge(s.value(), s.name(), (a, b) -> a);
            }
        }
        return of(elf.name(), BatTables.read(elf), names);
    }

    /**
     * The dump of tables, with function names by output address (absent: no symbol).
     *
     * @param binary the name the dump gives the binary
     * @param tables the tables to show
     * @param names function names by output address
     * @return the dump
     */
    public static Dump of(String binary, BatTables tables, Map<Long, String> names) {
        Map<Long, List<ColdFragment>> cold = new HashMap<>();
        for (BatColdFragment c : tables.coldFragments()) {
            cold.computeIfAbsent(c.parentAddress(), k -> new ArrayList<>())
                    .add(new ColdFragment(names.get(c.address()), c.address(), entries(c.map())));
        }
        List<Function> functions = new ArrayList<>();
        for (BatFunction f : tables.functions()) {
            functions.add(new Function(names.get(f.address()), f.address(), hex(f.hash()), f.blockCount(), entries(f.map()),
                    f.secondaryEntryPoints(), cold.getOrDefault(f.address(), List.of())));
        }
        return new Dump(binary, tables.functions().size(), tables.coldFragments().size(), functions);
    }

    private static List<Entry> entries(BatMap map) {
        List<Entry> list = new ArrayList<>(map.size());
        for (int i = 0; i < map.size(); i++) {
            boolean branch = map.isBranch(i);
            // BOLT writes hash 0 and index 0 for a non-branch offset that starts no input block; block 0
            // is the entry block, at input offset 0 (Splice's own tables may give it hash 0).
            boolean blockStart = !branch && (map.blockHash(i) != 0 || map.blockIndex(i) != 0 || map.inputOffset(i) == 0);
            list.add(new Entry(map.outputOffset(i), map.inputOffset(i), branch, blockStart, branch ? null : map.blockIndex(i),
                    branch ? null : hex(map.blockHash(i))));
        }
        return list;
    }

    private static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }

    /**
     * Prints the dump as a readable table (the text of {@code splice bat dump}): per hot function a
     * heading, one line per entry (output offset, input offset, kind, block index and hash), the
     * secondary entry points and the cold fragments.
     *
     * @param dump the dump to print
     * @param out where the text goes
     * @throws java.io.IOException if {@code out} fails
     */
    public static void print(Dump dump, Appendable out) throws java.io.IOException {
        out.append(String.format("%s: %d hot functions, %d cold fragments%n", dump.binary(), dump.hotFunctions(), dump.coldFragments()));
        for (Function f : dump.functions()) {
            out.append(String.format("%nfunction %s at 0x%x  hash %s  blocks %d%n", name(f.name()), f.address(), f.hash(), f.blockCount()));
            printEntries(f.entries(), "  ", out);
            if (!f.secondaryEntryPoints().isEmpty()) {
                out.append("  secondary entry points (input offsets):");
                for (long p : f.secondaryEntryPoints()) {
                    out.append(String.format(" 0x%x", p));
                }
                out.append(System.lineSeparator());
            }
            for (ColdFragment c : f.coldFragments()) {
                out.append(String.format("  cold fragment %s at 0x%x (parent %s)%n", name(c.name()), c.address(), name(f.name())));
                printEntries(c.entries(), "    ", out);
            }
        }
    }

    private static String name(String n) {
        return n == null ? "(no symbol)" : n;
    }

    /**
     * One line per entry, in columns: output offset, input offset, kind ("block" for the start of an
     * input block, "branch" for a branch, "offset" for any other mapped offset), and for a block its
     * index and hash.
     */
    private static void printEntries(List<Entry> entries, String indent, Appendable out) throws java.io.IOException {
        out.append(indent).append(String.format("%-10s  %-10s  %-6s  %5s  %s%n", "output", "input", "kind", "block", "hash"));
        for (Entry e : entries) {
            String offsets = String.format("%-10s  %-10s", "0x" + Long.toHexString(e.outputOffset()), "0x" + Long.toHexString(e.inputOffset()));
            String line = e.branch() ? offsets + "  branch"
                    : e.blockStart() ? String.format("%s  %-6s  %5d  %s", offsets, "block", e.blockIndex(), e.blockHash())
                    : offsets + "  offset";
            out.append(indent).append(line).append(System.lineSeparator());
        }
    }
}
