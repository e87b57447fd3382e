package dev.splice.weigh;

import dev.splice.base.BadInputException;
import dev.splice.isa.Decoder;
import dev.splice.isa.Extension;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import dev.splice.weigh.campaign.Catalog;
import dev.splice.weigh.campaign.PluginRecords;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A catalog of a real program's instructions per semantic key (issue 4 section 5): from the plugin's
 * catalog records (per raw encoding: translated slots and executions) to classes keyed as the
 * context table keys them, so that {@code splice weigh map} can put weights on them. Format in
 * docs/formats.md ("Program catalogs").
 */
public final class ProgramCatalog {
    private static final Decoder DECODER = Isa.rv64().decoder(Extension.all());
    /** Key suffixes by a CSR number's bits 9..8: user, supervisor, hypervisor, machine. */
    private static final String[] CSR_PRIVILEGE = {"", ".smode", ".hmode", ".mmode"};
    private static final String[] FENCE_SETS = {"", "w", "r", "rw", "o", "ow", "or", "orw", "i", "iw", "ir", "irw",
        "io", "iow", "ior", "iorw"};

    private ProgramCatalog() {}

    /**
     * Runs a program under qemu-riscv64 with the plugin in catalog mode and catalogs what it ran.
     *
     * @param plugin the Splice QEMU plugin
     * @param program a RISC-V64 Linux executable
     * @param args its arguments
     * @param streams the guest's standard streams
     * @return the catalog, its origin naming the run
     * @throws BadInputException when the program dies of a signal (QEMU then writes no records) or runs
     *     more than one guest thread (the plugin's counters are exact only for one)
     */
    public static Catalog of(QemuPlugin plugin, Path program, List<String> args, QemuRunner.Streams streams) {
        QemuRunner.Result r = new QemuRunner(plugin)
                .run(program, args, PluginRecords.Mode.CATALOG, Optional.empty(), streams);
        if (r.records().isEmpty()) {
            throw new BadInputException(program + " died of signal " + r.signal() + ": QEMU wrote no catalog");
        }
        PluginRecords records = r.records().get();
        if (records.footer().vcpus() != 1) {
            throw new BadInputException(program + " ran " + records.footer().vcpus()
                    + " guest threads: the plugin's inline counters are exact only for one");
        }
        return new Catalog(new Catalog.Origin(program.toString(), args, r.exitCode(), records.footer().translations()),
                classes(records.catalog()), records.blocks(), translatedBlocks(records.translationBlocks()),
                records.dynamics());
    }

    /** The blocks' dependence structure by class key, blocks of the same structure merged (first seen order). */
    static List<Catalog.TranslatedBlock> translatedBlocks(List<PluginRecords.TranslationBlock> blocks) {
        Map<List<Object>, long[]> entered = new java.util.LinkedHashMap<>();
        Map<List<Object>, Catalog.TranslatedBlock> shape = new java.util.HashMap<>();
        for (PluginRecords.TranslationBlock b : blocks) {
            if (b.entered() == 0) {
                continue;
            }
            List<String> keys = new java.util.ArrayList<>();
            List<List<Integer>> producers = new java.util.ArrayList<>();
            for (PluginRecords.BlockInstruction i : b.instructions()) {
                int bits = (int) i.encoding();
                keys.add(key(DECODER.decode(bits, i.size()), bits, i.size()));
                producers.add(i.producers());
            }
            List<Object> id = List.of(b.kind(), keys, producers);
            entered.computeIfAbsent(id, k -> new long[1])[0] += b.entered();
            shape.putIfAbsent(id, new Catalog.TranslatedBlock(b.kind(), 0, keys, producers));
        }
        return entered.entrySet().stream().map(e -> {
            Catalog.TranslatedBlock t = shape.get(e.getKey());
            return new Catalog.TranslatedBlock(t.kind(), e.getValue()[0], t.keys(), t.producers());
        }).toList();
    }

    /** Classes sorted by key (no {@code count}: the plugin's counts are translations and executions). */
    static List<Catalog.Entry> classes(List<PluginRecords.CatalogEntry> records) {
        return classes(records, false);
    }

    /**
     * The classes of a system-mode catalog (a bare-metal image): keyed as {@link #classes}, and CSR
     * instructions on S-, H- and M-level CSRs with the privilege the CSR's number gives (bits 9..8,
     * the lowest privilege that may access it) appended: {@code csrrs.mstatus.mmode}, {@code
     * csrrw.sscratch.smode}, as the system-mode contexts key them; user-level CSRs as in user mode.
     *
     * @param records the plugin's catalog records
     * @return the classes sorted by key
     */
    public static List<Catalog.Entry> systemClasses(List<PluginRecords.CatalogEntry> records) {
        return classes(records, true);
    }

    private static List<Catalog.Entry> classes(List<PluginRecords.CatalogEntry> records, boolean csrPrivilege) {
        Map<String, long[]> sums = new TreeMap<>();
        Map<String, String> extensions = new TreeMap<>();
        for (PluginRecords.CatalogEntry e : records) {
            int bits = (int) e.encoding();
            Opcode op = DECODER.decode(bits, e.size());
            String key = key(op, bits, e.size());
            if (csrPrivilege && op != null && op.extension() == Extension.ZICSR) {
                key += CSR_PRIVILEGE[(bits >>> 28) & 3];
            }
            extensions.putIfAbsent(key, extension(op));
            long[] s = sums.computeIfAbsent(key, k -> new long[3]);
            s[0] += e.translated();
            s[1] += e.executed();
            s[2]++;
        }
        return sums.entrySet().stream()
                .map(x -> new Catalog.Entry(x.getKey(), extensions.get(x.getKey()), x.getValue()[0], x.getValue()[1],
                        -1, (int) x.getValue()[2]))
                .toList();
    }

    /**
     * The semantic key of one encoding: the mnemonic as Splice's decoder names it (aq/rl included,
     * {@code fence.tso}), then {@code .CSR} for CSR instructions and {@code .PRED-SUCC} for fences, as
     * in the context table ({@code csrrs.fflags}, {@code fence.rw-rw}); unknown encodings are
     * {@code unknown.0xENC}.
     */
    static String key(Opcode op, int bits, int size) {
        if (op == null) {
            return String.format(size == 2 ? "unknown.0x%04x" : "unknown.0x%08x", bits & (size == 2 ? 0xffff : -1));
        }
        String m = op.mnemonic();
        if (op.extension() == Extension.ZICSR) {
            int csr = bits >>> 20;
            String name = Isa.rv64().csrName(csr);
            return m + "." + (name != null ? name : String.format("0x%03x", csr));
        }
        if (m.equals("fence")) {
            return m + "." + FENCE_SETS[(bits >>> 24) & 0xf] + "-" + FENCE_SETS[(bits >>> 20) & 0xf];
        }
        if (m.equals("fence.tso")) {
            return "fence.tso.rw-rw";
        }
        return m;
    }

    private static String extension(Opcode op) {
        if (op == null) {
            return "unknown";
        }
        String m = op.mnemonic();
        if (m.equals("ecall") || m.equals("ebreak")) {
            return "system";
        }
        return op.extension().isaName();
    }
}
