package dev.splice.profile;

import dev.splice.bat.BatTables;
import dev.splice.elf.ElfFile;
import java.io.IOException;
import java.io.Writer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * BOLT's YAML profile as perf2bolt -w writes it for a BOLTed binary: for each function with a table
 * and branch data, the input function's hash and block count from the table, its input blocks
 * (index, hash), block execution counts from entries, successor edges and call sites (callee id and
 * secondary entry discriminator). Function ids are Splice's own numbering, consistent within the
 * profile (llvm-bolt matches functions by name and hash).
 */
final class YamlProfile {
    private final ElfFile elf;
    private final BatTables bat;
    private final Fdata fdata;
    private final ProfileTranslator translator;

    YamlProfile(ElfFile elf, BatTables bat, Fdata fdata, ProfileTranslator translator) {
        this.elf = elf;
        this.bat = bat;
        this.fdata = fdata;
        this.translator = translator;
    }

    /** A scalar quoted as LLVM's YAML writer quotes it (single quotes unless only plain-safe characters). */
    static String scalar(String s) {
        boolean quote = s.isEmpty() || Character.isWhitespace(s.charAt(0)) || Character.isWhitespace(s.charAt(s.length() - 1))
                || "-?:\\,[]{}#&*!|>'\"%@`".indexOf(s.charAt(0)) >= 0
                || List.of("null", "Null", "NULL", "~", "true", "True", "TRUE", "false", "False", "FALSE").contains(s);
        for (int i = 0; i < s.length() && !quote; i++) {
            char c = s.charAt(i);
            boolean safe = c < 0x80 && (Character.isLetterOrDigit(c) || "_-^., \t".indexOf(c) >= 0);
            quote = !safe;
        }
        return quote ? "'" + s.replace("'", "''") + "'" : s;
    }

    private static String hex(long v) {
        return "0x" + Long.toHexString(v).toUpperCase(java.util.Locale.ROOT);
    }

    private static final class Block {
        long exec;
        final List<String> calls = new ArrayList<>();
        final List<String> successors = new ArrayList<>();
    }

    void write(Writer out) throws IOException {
        out.write("---\nheader:\n");
        out.write("  profile-version: 1\n");
        out.write("  binary-name:     " + scalar(elf.name()) + "\n");
        out.write("  binary-build-id: " + elf.buildId().map(YamlProfile::hexBytes).orElse("'<unknown>'") + "\n");
        out.write("  profile-flags:   [ " + (fdata.noLbr() ? "sample" : "lbr") + " ]\n");
        out.write("  profile-origin:  perf data aggregator\n");
        out.write("  profile-events:  '" + String.join(",", fdata.eventNames()) + "'\n");
        out.write("  dfs-order:       false\n");
        out.write("  hash-func:       xxh3\n");
        if (fdata.noLbr()) {
            out.write("functions:       []\n...\n");
            return;
        }
        // Function ids: 1 + position among the rewritten binary's functions.
        RewrittenBinary binary = translator.binary();
        Map<String, Integer> ids = new HashMap<>();
        List<RewrittenBinary.BoltFunction> all = binary.functions();
        for (int i = 0; i < all.size(); i++) {
            ids.putIfAbsent(all.get(i).name(), i + 1);
        }
        Map<String, List<Fdata.Branch>> byFunction = new LinkedHashMap<>();
        for (Fdata.Branch b : fdata.branches()) {
            if (b.from().name() != null) {
                byFunction.computeIfAbsent(b.from().name(), k -> new ArrayList<>()).add(b);
            }
        }
        Map<Fdata.Location, Long> entries = translator.entryCounts();
        for (Fdata.Location l : entries.keySet()) {
            byFunction.computeIfAbsent(l.name(), k -> new ArrayList<>());
        }
        out.write("functions:\n");
        for (Map.Entry<String, List<Fdata.Branch>> e : new TreeMap<>(byFunction).entrySet()) {
            RewrittenBinary.BoltFunction f = translator.function(e.getKey());
            if (f == null || !bat.isBatFunction(f.address()) || bat.fetchParentAddress(f.address()) != 0) {
                continue;
            }
            BatTables.BlockTable blocks = bat.blocks(f.address());
            List<BatTables.Block> ordered = new ArrayList<>(blocks.byOffset().values());
            int nblocks = (int) Math.min(bat.blockCount(f.address()), Integer.MAX_VALUE);
            Map<Integer, Block> profile = new TreeMap<>();
            long exec = 0;
            for (Map.Entry<Fdata.Location, Long> en : entries.entrySet()) {
                if (!en.getKey().name().equals(e.getKey())) {
                    continue;
                }
                if (en.getKey().offset() == 0) {
                    exec += en.getValue();
                }
                BatTables.Block b = blocks.byOffset().get(en.getKey().offset());
                if (b != null && isBlock(b.index(), nblocks)) {
                    profile.computeIfAbsent((int) b.index(), k -> new Block()).exec += en.getValue();
                }
            }
            for (Fdata.Branch b : e.getValue()) {
                BatTables.Block from = blocks.containing(b.from().offset());
                if (from == null || !isBlock(from.index(), nblocks)) {
                    continue;
                }
                Block yb = profile.computeIfAbsent((int) from.index(), k -> new Block());
                String mis = b.mispreds() != 0 ? ", mis: " + b.mispreds() : "";
                if (b.to().name() != null && b.to().name().equals(b.from().name()) && b.to().offset() != 0) {
                    BatTables.Block to = blocks.containing(b.to().offset());
                    if (to != null && isBlock(to.index(), nblocks)) {
                        yb.successors.add("{ bid: " + to.index() + ", cnt: " + b.count() + mis + " }");
                    }
                } else {
                    StringBuilder call = new StringBuilder("{ off: " + hex(b.from().offset() - from.inputOffset()));
                    long fid = 0;
                    int disc = 0;
                    if (b.to().name() != null) {
                        RewrittenBinary.BoltFunction callee = translator.function(b.to().name());
                        fid = ids.getOrDefault(b.to().name(), 0);
                        if (callee != null && b.to().offset() != 0) {
                            BatTables.SymbolTarget t = bat.translateSymbol(callee.address(), callee.address(), b.to().offset());
                            disc = t.entryPointId();
                        }
                    }
                    call.append(", fid: ").append(fid);
                    if (disc != 0) {
                        call.append(", disc: ").append(disc);
                    }
                    call.append(", cnt: ").append(b.count()).append(mis).append(" }");
                    yb.calls.add(call.toString());
                }
            }
            out.write("  - name:            " + scalar(e.getKey()) + "\n");
            out.write("    fid:             " + ids.getOrDefault(e.getKey(), 0) + "\n");
            out.write("    hash:            " + hex(bat.functionHash(f.address())) + "\n");
            out.write("    exec:            " + exec + "\n");
            out.write("    nblocks:         " + nblocks + "\n");
            boolean any = false;
            for (Map.Entry<Integer, Block> pb : profile.entrySet()) {
                Block yb = pb.getValue();
                if (yb.exec == 0 && yb.calls.isEmpty() && yb.successors.isEmpty()) {
                    continue;
                }
                if (!any) {
                    out.write("    blocks:\n");
                    any = true;
                }
                int index = pb.getKey();
                long hash = index < ordered.size() ? ordered.get(index).hash() : 0;
                out.write("      - bid:             " + index + "\n");
                out.write("        insns:           0\n");
                out.write("        hash:            " + hex(hash) + "\n");
                if (yb.exec != 0) {
                    out.write("        exec:            " + yb.exec + "\n");
                }
                if (!yb.calls.isEmpty()) {
                    out.write("        calls:           [ " + String.join(", ", yb.calls) + " ]\n");
                }
                if (!yb.successors.isEmpty()) {
                    out.write("        succ:            [ " + String.join(", ", yb.successors) + " ]\n");
                }
            }
            if (!any) {
                out.write("    blocks:          []\n");
            }
        }
        out.write("...\n");
    }

    private static String hexBytes(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            s.append(String.format("%02x", x));
        }
        return s.toString();
    }

    /** A block index the function's table can have (a forged table may give negative or huge ones). */
    private static boolean isBlock(long index, int nblocks) {
        return index >= 0 && index < nblocks;
    }
}
