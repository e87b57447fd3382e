package dev.splice.weigh.report;

import dev.splice.base.BadInputException;
import dev.splice.weigh.campaign.ContextWeight;
import dev.splice.weigh.campaign.Weights;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The side-by-side page of issue 13: the user-mode and system-mode weights of the same contexts,
 * their ratio, and the QEMU mechanism that makes them differ (softmmu TLB, helper calls, exits to
 * the main loop). One self-contained HTML file; the same inputs give the same bytes.
 */
public final class ComparePage {
    private ComparePage() {}

    /**
     * One side: weights and the mode they were measured in.
     *
     * @param file where they were read from (shown on the page)
     * @param mode {@code user} or {@code system}
     * @param weights the weights
     */
    public record Side(String file, String mode, Weights weights) {}

    /**
     * Reads both sides and tells which is which by weights.json's {@code "mode"} (which {@code weigh
     * model} copies from the campaign's manifest), in either order. A file written before the field
     * existed takes the mode the other file does not name; when neither names one, the first is the
     * user-mode side.
     *
     * @param first a weights.json
     * @param second another weights.json
     * @return the user-mode side, then the system-mode side
     * @throws BadInputException when a file is not weights.json, names a mode other than user or
     *     system, or both name the same mode
     */
    public static List<Side> sides(Path first, Path second) {
        Weights a = Weights.read(first);
        Weights b = Weights.read(second);
        for (Weights w : List.of(a, b)) {
            if (w.mode() != null && !w.mode().equals("user") && !w.mode().equals("system")) {
                throw new BadInputException((w == a ? first : second) + ": mode \"" + w.mode() + "\" is neither user nor system");
            }
        }
        String modeA = a.mode() != null ? a.mode() : b.mode() == null || b.mode().equals("system") ? "user" : "system";
        String modeB = b.mode() != null ? b.mode() : modeA.equals("user") ? "system" : "user";
        if (modeA.equals(modeB)) {
            throw new BadInputException("--compare takes user-mode and system-mode weights; " + first + " and " + second
                    + " are both " + modeA + " mode");
        }
        Side sa = new Side(first.toString(), modeA, a);
        Side sb = new Side(second.toString(), modeB, b);
        return modeA.equals("user") ? List.of(sa, sb) : List.of(sb, sa);
    }

    /**
     * What makes a context cost differently in system mode than in user mode, by its pattern.
     *
     * @param context the context name
     * @return one sentence
     */
    static String mechanism(String context) {
        String p = ContextGroups.pattern(context);
        String m = ContextGroups.mnemonic(context);
        if (p == null) {
            return "not in the context table";
        }
        return switch (p) {
            case "hot-load", "hot-store", "stack", "stack-load", "stack-store", "amo", "reservation", "reservation-pair" ->
                "memory access: softmmu TLB lookup in system mode (inline compare, helper call on a miss); a direct host access in user mode";
            case "csr-read", "csr-write" -> "CSR access: a helper call in both modes; system mode checks privilege, and some writes end the block and exit to the main loop";
            case "fence" -> m.equals("fence.i")
                    ? "fence.i: ends the translation block and flushes translated code in both modes"
                    : "memory fence: a host barrier in both modes";
            case "indirect-jump", "ret", "call" -> m.startsWith("jal") && !m.startsWith("jalr")
                    ? "direct call: chained translation blocks in both modes"
                    : "indirect jump: a helper looks the target block up (lookup_and_goto_ptr); in system mode through the TLB of the code's page";
            case "taken", "not-taken", "direct-jump" -> "direct branch: chained translation blocks in both modes";
            default -> m.startsWith("f") || m.startsWith("c.f")
                    ? "floating point: softfloat helper calls in both modes"
                    : "integer ALU: the same inline host code in both modes (a ratio near 1 is expected)";
        };
    }

    private record Row(String context, ContextWeight user, ContextWeight system, double ratio, double low, double high) {}

    /** The ratio's range from the two bands (NaN unless both bands lie above zero). */
    private static Row row(ContextWeight u, ContextWeight s) {
        double ratio = s.estimateNs() / u.estimateNs();
        boolean bounded = u.ciLowNs() > 0 && s.ciLowNs() > 0;
        return new Row(u.context(), u, s, u.estimateNs() > 0 && s.estimateNs() > 0 ? ratio : Double.NaN,
                bounded ? s.ciLowNs() / u.ciHighNs() : Double.NaN, bounded ? s.ciHighNs() / u.ciLowNs() : Double.NaN);
    }

    private static final String STYLE = "body{font-family:sans-serif;max-width:1100px;margin:1em auto;padding:0 1em;color:#222}"
            + "table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}"
            + "td.n{text-align:right;font-variant-numeric:tabular-nums}th{background:#f3f3f3}.fig{overflow-x:auto}";

    /**
     * Renders the page.
     *
     * @param user the user-mode side
     * @param system the system-mode side
     * @return the HTML text
     * @throws BadInputException when the sides' modes are not user and system
     */
    public static String render(Side user, Side system) {
        if (!user.mode().equals("user") || !system.mode().equals("system")) {
            throw new BadInputException("--compare takes user-mode weights, then system-mode weights; got " + user.file()
                    + " (" + user.mode() + ") and " + system.file() + " (" + system.mode() + ")");
        }
        Map<String, ContextWeight> sys = new LinkedHashMap<>();
        system.weights().contexts().forEach(c -> sys.put(c.context(), c));
        List<Row> rows = new ArrayList<>();
        List<String> onlyUser = new ArrayList<>();
        for (ContextWeight u : user.weights().contexts()) {
            ContextWeight s = sys.get(u.context());
            if (s == null) {
                onlyUser.add(u.context());
            } else {
                rows.add(row(u, s));
            }
        }
        Map<String, ContextWeight> usr = new LinkedHashMap<>();
        user.weights().contexts().forEach(c -> usr.put(c.context(), c));
        List<String> onlySystem = system.weights().contexts().stream().map(ContextWeight::context)
                .filter(c -> !usr.containsKey(c)).toList();
        StringBuilder sb = new StringBuilder();
        sb.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
                .append("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">")
                .append("<title>User-mode and system-mode weights</title>\n<style>").append(STYLE).append("</style></head><body>\n")
                .append("<h1>User-mode and system-mode weights</h1>\n<ul><li>user mode: ").append(Svg.esc(user.file()))
                .append(" (").append(user.weights().contexts().size()).append(" contexts; ")
                .append(Svg.esc(dev.splice.weigh.model.Report.cpuLine(user.weights().mode(), user.weights().qemuCpu())))
                .append(")</li><li>system mode: ")
                .append(Svg.esc(system.file())).append(" (").append(system.weights().contexts().size()).append(" contexts; ")
                .append(Svg.esc(dev.splice.weigh.model.Report.cpuLine(system.weights().mode(), system.weights().qemuCpu())))
                .append(")</li><li>").append(rows.size()).append(" contexts in both, ").append(onlyUser.size())
                .append(" only in user mode, ").append(onlySystem.size()).append(" only in system mode</li></ul>\n");
        mechanisms(sb);
        sb.append("<h2 id=\"side-by-side\">Estimates side by side</h2>\n<p>Each context's estimate and simultaneous 95% ")
                .append("band in user mode (blue, upper) and system mode (red, lower), grouped by extension and pattern; log axis.</p>\n")
                .append("<div class=\"fig\">").append(Svg.dumbbell("compare-plot", groups(rows))).append("</div>\n");
        List<Svg.Mark> ratios = rows.stream().filter(r -> Double.isFinite(r.ratio())).sorted(Comparator.comparingDouble(Row::ratio)
                .thenComparing(Row::context)).map(r -> new Svg.Mark(r.context(), null, r.ratio(), r.low(), r.high(),
                        r.user().highQuality() && r.system().highQuality(), false)).toList();
        sb.append("<h2 id=\"ratios\">Ratio system / user</h2>\n<p>Bar: the ratio of the estimates; whisker: from the lower ")
                .append("end of the system band over the upper end of the user band to the reverse (shown when both bands lie ")
                .append("above zero). Faded: a context low-confidence in either mode.</p>\n")
                .append(ratios.isEmpty() ? "<p>No context has positive estimates in both modes.</p>\n"
                        : "<div class=\"fig\">" + Svg.valueBars("ratio-bars", ratios, true, "ratio system / user", "x", 1) + "</div>\n");
        table(sb, rows);
        sb.append("<h2 id=\"unpaired\">Contexts measured in one mode only</h2>\n<p>user mode only: ")
                .append(onlyUser.isEmpty() ? "none" : Svg.esc(String.join(", ", onlyUser))).append("</p>\n<p>system mode only: ")
                .append(onlySystem.isEmpty() ? "none" : Svg.esc(String.join(", ", onlySystem))).append("</p>\n");
        return sb.append("</body></html>\n").toString();
    }

    private static void mechanisms(StringBuilder sb) {
        sb.append("<h2 id=\"mechanisms\">Why the two modes differ</h2>\n")
                .append("<p><b>softmmu TLB.</b> In user mode (qemu-riscv64) a guest load or store is a host access at a fixed ")
                .append("offset: the guest's addresses are the process's. In system mode (qemu-system-riscv64) every access ")
                .append("goes through QEMU's software TLB: the generated code hashes the virtual page into the TLB, compares the ")
                .append("tag and adds the host offset (a few host instructions, the TLB hit); on a miss it calls a helper that ")
                .append("walks the guest page table (Sv39) or PMP and refills the entry. Loads, stores, atomics and LR/SC pay the ")
                .append("hit path on every execution; contexts that miss pay the walk.</p>\n")
                .append("<p><b>Helper calls.</b> Instructions TCG does not expand inline (floating point through softfloat, ")
                .append("CSR accesses, atomics when vCPUs run in parallel) call a C helper in both modes; in system ")
                .append("mode CSR helpers also check the privilege level and may raise an exception.</p>\n")
                .append("<p><b>Exits to the main loop.</b> Some instructions cannot continue in translated code: writes to ")
                .append("satp or mstatus that change the translation regime, fence.i, sfence.vma, traps and their returns ")
                .append("(ecall, mret, sret), wfi, interrupts. They end the translation block and return to QEMU's main loop ")
                .append("(cpu_exec), which looks up or translates the next block; an exception round trip costs far more than ")
                .append("an instruction. Indirect jumps stay in translated code through lookup_and_goto_ptr but look the target ")
                .append("block up by a hash of the program counter (in system mode, of its physical address).</p>\n")
                .append("<p>The mechanism column of the table names the one that applies to each context's pattern.</p>\n");
    }

    private static List<Svg.PairGroup> groups(List<Row> rows) {
        List<Svg.PairGroup> out = new ArrayList<>();
        ContextGroups.byGroup(rows, Row::context, Comparator.comparingDouble((Row r) -> Double.isFinite(r.user().estimateNs())
                ? r.user().estimateNs() : Double.MAX_VALUE).thenComparing(Row::context)).forEach((g, l) -> out.add(
                        new Svg.PairGroup(g, l.stream().map(r -> new Svg.Pair(r.context(), mark(r.user()), mark(r.system()))).toList())));
        return out;
    }

    private static Svg.Mark mark(ContextWeight c) {
        return new Svg.Mark(c.context(), null, c.estimateNs(), c.ciLowNs(), c.ciHighNs(), c.highQuality(),
                c.weightNs() != null && c.weightNs() == 0);
    }

    private static String n(double v) {
        return Axis.label(v);
    }

    private static void table(StringBuilder sb, List<Row> rows) {
        sb.append("<h2 id=\"table\">Table</h2>\n<table id=\"compare-table\"><tr><th>context</th><th>group</th>")
                .append("<th>user ns</th><th>user band</th><th>user quality</th><th>system ns</th><th>system band</th>")
                .append("<th>system quality</th><th>ratio</th><th>ratio range</th><th>mechanism</th></tr>\n");
        for (Row r : rows) {
            sb.append("<tr><td>").append(Svg.esc(r.context())).append("</td><td>").append(Svg.esc(ContextGroups.group(r.context())))
                    .append("</td><td class=\"n\">").append(n(r.user().estimateNs())).append("</td><td>[")
                    .append(n(r.user().ciLowNs())).append(", ").append(n(r.user().ciHighNs())).append("]</td><td>")
                    .append(r.user().highQuality() ? "high" : "low").append("</td><td class=\"n\">").append(n(r.system().estimateNs()))
                    .append("</td><td>[").append(n(r.system().ciLowNs())).append(", ").append(n(r.system().ciHighNs()))
                    .append("]</td><td>").append(r.system().highQuality() ? "high" : "low").append("</td><td class=\"n\">")
                    .append(n(r.ratio())).append("</td><td>").append(Double.isFinite(r.low()) ? "[" + n(r.low()) + ", "
                            + n(r.high()) + "]" : "-")
                    .append("</td><td>").append(Svg.esc(mechanism(r.context()))).append("</td></tr>\n");
        }
        sb.append("</table>\n");
    }
}
