package dev.splice.weigh.probe;

import dev.splice.elf.ExecutableBuilder;
import dev.splice.listing.Assembler;
import dev.splice.listing.Assembly;
import dev.splice.weigh.Context;
import dev.splice.weigh.ContextTable;
import dev.splice.weigh.campaign.GuestClock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;

/**
 * Generates the probe executable of issue 4 section 2 with Splice's own assembler and ELF writer:
 * a static RISC-V64 Linux program without libc that, for every pair of a randomized schedule,
 * runs a warm-up window and a measured window of the probe kernel and of its baseline kernel.
 * Layout and register conventions are in docs/weigh-measure.md. The same contexts and options give
 * the same bytes.
 */
public final class ProbeProgram {
    /** Target slots per kernel call, unless the context's pairs run a smaller kernel ({@link ProbeOptions#slots()}). */
    public static final int SLOTS = 1024;
    private static final long TEXT_ADDRESS = 0x11000;
    /** Fixed data layout (the code reaches it with lla). */
    private static final long DATA_ADDRESS = 0x1000_0000L;
    /** The guest page, where QEMU ends a translation block. */
    private static final long PAGE = 4096;
    static final long HOT = DATA_ADDRESS;
    static final long FCONST_D = DATA_ADDRESS + 256;
    static final long FCONST_S = DATA_ADDRESS + 512;
    /** {@code addi zero, zero, 0}: what the assembler pads code alignment with. */
    private static final long NOP = 0x13;
    /** Where the pointer-chase contexts keep their rings' bases (8 bytes each; zero until linked). */
    static final long CHASE_STATE = DATA_ADDRESS + 1024;
    static final long SCHEDULE = DATA_ADDRESS + 4096;
    /**
     * The first-touch contexts' region (label {@code fresh_pages}, page-aligned after the clock
     * readings): bss that QEMU maps as anonymous memory, so a page of it is a host page fault the
     * first time it is touched. Only probes with such a context have it; the contexts' cursor wraps
     * within it (contexts.tsv).
     */
    static final long FRESH_PAGES_BYTES = 256L << 20;
    private static final Map<String, Long> DATA_LABELS = Map.of("hot", HOT, "fconst_d", FCONST_D, "fconst_s",
            FCONST_S, "chase_state", CHASE_STATE, "schedule", SCHEDULE);
    /** Bytes the guest writes to stdout before the per-window clock readings. */
    private static final int CLOCK_HEADER_BYTES = GuestClock.HEADER_BYTES;

    static final List<String> INT_ROTATION =
            List.of("t3", "t4", "t5", "t6", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11");
    static final List<String> FP_ROTATION = List.of("ft4", "ft5", "ft6", "ft7", "ft8", "ft9", "ft10", "ft11");
    /** Registers kernels write and then read back (TCG removes code whose results are never read). */
    private static final List<String> ACCUMULATED_INT = List.of(
            "a0", "a4", "a5", "s1", "t3", "t4", "t5", "t6", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "s10", "s11");
    private static final List<String> ACCUMULATED_FP =
            List.of("fa0", "fa4", "ft4", "ft5", "ft6", "ft7", "ft8", "ft9", "ft10", "ft11");
    private static final java.util.regex.Pattern NEXT_SLOT = java.util.regex.Pattern.compile("\\b1f\\b");
    private static final java.util.regex.Pattern BRANCH_OFFSET =
            java.util.regex.Pattern.compile("^(\\S+(?:\\s.*,)?)\\s*(2|4)$");

    /**
     * The generated program.
     *
     * @param elf the static RISC-V64 executable
     * @param windows every marked window, in execution order (warm-ups included)
     * @param pairs the measured pairs, in execution order
     * @param kernels the kernel of every context, by context key
     * @param contexts the contexts with a kernel that are measured (root baselines excluded)
     */
    public record Probe(byte[] elf, List<Window> windows, List<ProbePair> pairs, Map<String, Kernel> kernels,
            List<String> contexts) {}

    /**
     * A kernel as assembled: how many times each raw encoding executes per call, and which
     * encodings are its target slots.
     *
     * @param context the kernel's context key
     * @param setup the kernel's setup function (run before its window; on an earlier page than the kernel
     *     when the kernel starts on a page of its own)
     * @param address the kernel's first instruction
     * @param end the end (exclusive) of the kernel function, epilogue included
     * @param perCall {@code (size << 32 | encoding) -> executions} per call of the prologue and slots
     * @param slotEncodings the target slot encodings ({@code size << 32 | encoding})
     * @param slots target slots per call
     */
    public record Kernel(String context, long setup, long address, long end, Map<Long, Long> perCall, Set<Long> slotEncodings,
            int slots) {}

    /** A kernel to generate: a context at a size. */
    private record KernelSpec(Context context, int slots) {
        String name() {
            return kernelName(context.key(), slots);
        }
    }

    /**
     * The name of a context's kernel of {@code slots} slots, as {@link Probe#kernels()} keys it: the context
     * key at {@link #SLOTS}, {@code key@slots} otherwise.
     *
     * @param context a context key
     * @param slots target slots per call
     * @return the kernel's name
     */
    public static String kernelName(String context, int slots) {
        return slots == SLOTS ? context : context + "@" + slots;
    }

    private ProbeProgram() {}

    /**
     * Builds the executable measuring {@code targets} against their baselines (added as needed, to
     * the root baseline) with the given options.
     *
     * @param table the context table
     * @param targets the contexts to measure
     * @param options seed, rounds and batches
     * @return the program; the same arguments give the same bytes
     */
    public static Probe generate(ContextTable table, List<Context> targets, ProbeOptions options) {
        List<Context> measured = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (Context c : targets) {
            addWithBaselines(table, c, measured, seen);
        }
        List<Context> probed = measured.stream().filter(c -> c.baseline().isPresent()).toList();
        if (probed.isEmpty()) {
            throw new IllegalArgumentException("no context with a baseline selected");
        }
        for (Context c : measured) {
            if (!c.runsOnQemu() && !c.systemOnly()) {
                throw new dev.splice.base.BadInputException("context " + c.key() + " cannot run on qemu-riscv64 7.2 (SIGILL)");
            }
        }
        // kernels: every measured context and every root baseline, in table order; a context's kernels
        // of every size its own pairs and the pairs it is the baseline of run, largest first
        List<KernelSpec> kernels = new ArrayList<>();
        Set<String> withKernel = new LinkedHashSet<>();
        for (Context c : table.contexts()) {
            Set<Integer> sizes = new java.util.TreeSet<>(Collections.reverseOrder());
            for (Context p : probed) {
                if (p.key().equals(c.key()) || p.baseline().orElse("").equals(c.key())) {
                    sizes.add(options.slotsOf(p.key()));
                }
            }
            if (withKernel.add(c.key())) {
                sizes.forEach(n -> kernels.add(new KernelSpec(c, n)));
            }
        }

        Schedule schedule = schedule(probed, options);
        long dataBytes = (SCHEDULE - DATA_ADDRESS) + 24L * schedule.windows.size();
        long clockHeader = DATA_ADDRESS + align(dataBytes, 64);
        Map<String, Long> dataLabels = new TreeMap<>(DATA_LABELS);
        dataLabels.put("clock_header", clockHeader);
        dataLabels.put("clock_windows", clockHeader + CLOCK_HEADER_BYTES);
        long windowsEnd = clockHeader + CLOCK_HEADER_BYTES + 16L * schedule.windows.size();
        long freshPages = align(windowsEnd, PAGE);
        dataLabels.put("fresh_pages", freshPages);
        Assembly asm = assembleWithoutPageCrossings(kernels, schedule, dataLabels);
        byte[] code = asm.bytes();
        Map<String, Long> labels = asm.labels();
        if (TEXT_ADDRESS + code.length + 0x1000 > DATA_ADDRESS) {
            throw new IllegalArgumentException("too many contexts: the code reaches the data at 0x"
                    + Long.toHexString(DATA_ADDRESS));
        }
        Map<String, Integer> kernelIndex = new TreeMap<>();
        for (int i = 0; i < kernels.size(); i++) {
            kernelIndex.put(kernels.get(i).name(), i);
        }
        java.nio.ByteBuffer data = java.nio.ByteBuffer.allocate((int) dataBytes)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        data.position((int) (FCONST_D - DATA_ADDRESS));
        data.putLong(Double.doubleToLongBits(1.5)).putLong(Double.doubleToLongBits(1.0)).putLong(Double.doubleToLongBits(0.75));
        data.position((int) (FCONST_S - DATA_ADDRESS));
        data.putInt(Float.floatToIntBits(1.5f)).putInt(Float.floatToIntBits(1.0f)).putInt(Float.floatToIntBits(0.75f));
        data.position((int) (SCHEDULE - DATA_ADDRESS));
        for (Window w : schedule.windows) {
            int k = kernelIndex.get(w.kernel());
            data.putLong(labels.get("setup_" + k)).putLong(labels.get("kern_" + k)).putLong(w.calls());
        }
        long bss = windowsEnd - DATA_ADDRESS - data.capacity();
        if (kernels.stream().anyMatch(k -> k.context().pattern() == Context.Pattern.FIRST_TOUCH)) {
            bss = freshPages + FRESH_PAGES_BYTES - DATA_ADDRESS - data.capacity();
        }
        byte[] elf = ExecutableBuilder.build(labels.get("_start"), TEXT_ADDRESS, code, DATA_ADDRESS, data.array(), bss);

        Map<String, Kernel> kernelInfo = new LinkedHashMap<>();
        for (int i = 0; i < kernels.size(); i++) {
            Context c = kernels.get(i).context();
            int size = kernels.get(i).slots();
            long start = labels.get("kern_" + i);
            long end = labels.get("kern_" + i + "_end");
            Map<Long, Long> perCall = encodings(code, (int) (start - TEXT_ADDRESS), (int) (end - TEXT_ADDRESS));
            Set<Long> slots = slotEncodings(c);
            long slotCount = slots.stream().mapToLong(e -> perCall.getOrDefault(e, 0L)).sum();
            if (slotCount != size) {
                throw new IllegalStateException(c.key() + ": kernel holds " + slotCount + " slot instructions, not " + size);
            }
            if (c.setup().stream().anyMatch(l -> l.startsWith(".balign"))) {
                // the setup jumps over its alignment padding (nops), which never runs
                perCall.remove(4L << 32 | NOP);
            }
            if (c.pattern() == Context.Pattern.PAGE_FAULT) {
                // the retry executes the load again: against the pointer-chase baseline, once more per slot
                slots.forEach(e -> perCall.computeIfPresent(e, (k, n) -> 2 * n));
            }
            long functionEnd = i + 1 < kernels.size() ? labels.get("setup_" + (i + 1)) : TEXT_ADDRESS + code.length;
            kernelInfo.put(kernels.get(i).name(), new Kernel(c.key(), labels.get("setup_" + i), start, functionEnd, perCall, slots, size));
        }
        return new Probe(elf, schedule.windows, schedule.pairs, kernelInfo,
                probed.stream().map(Context::key).toList());
    }

    private static void addWithBaselines(ContextTable table, Context c, List<Context> out, Set<String> seen) {
        if (c.baseline().isEmpty() || seen.contains(c.key())) {
            return;
        }
        seen.add(c.key());
        out.add(c);
        Context base = table.context(c.baseline().get())
                .orElseThrow(() -> new IllegalStateException("unknown baseline " + c.baseline().get()));
        addWithBaselines(table, base, out, seen);
    }

    private record Schedule(List<Window> windows, List<ProbePair> pairs) {}

    /** Rounds of shuffled (context, batch) pairs with AB/BA drawn from the seed. */
    private static Schedule schedule(List<Context> probed, ProbeOptions options) {
        Random random = new Random(options.seed());
        List<Window> windows = new ArrayList<>();
        List<ProbePair> pairs = new ArrayList<>();
        for (int round = 0; round < options.rounds(); round++) {
            List<int[]> items = new ArrayList<>();
            for (int c = 0; c < probed.size(); c++) {
                for (int b = 0; b < options.calls().size(); b++) {
                    items.add(new int[] {c, b});
                }
            }
            Collections.shuffle(items, random);
            for (int[] item : items) {
                Context c = probed.get(item[0]);
                int calls = options.calls().get(item[1]);
                int size = options.slotsOf(c.key());
                boolean ab = random.nextBoolean();
                int pair = pairs.size();
                String base = c.baseline().orElseThrow();
                int first = windows.size() + 1;
                int second = windows.size() + 3;
                for (int k = 0; k < 2; k++) {
                    boolean probeWindow = (k == 0) == ab;
                    String key = probeWindow ? c.key() : base;
                    windows.add(new Window(windows.size(), key, probeWindow, true, options.warmupCalls(), pair, size));
                    windows.add(new Window(windows.size(), key, probeWindow, false, calls, pair, size));
                }
                pairs.add(new ProbePair(pair, c.key(), base, calls, calls * size, round, ab ? "AB" : "BA",
                        ab ? first : second, ab ? second : first));
            }
        }
        return new Schedule(windows, pairs);
    }

    /**
     * Assembles the program so that no kernel crosses a page boundary it need not: a kernel that would
     * cross one starts on a page of its own. QEMU ends a translation block at a page boundary, so a kernel
     * that straddles one runs a block more per call than its layout's twin (a 1-slot ecall kernel counted
     * 3 blocks instead of 2), and a probe and its baseline would differ by where they happen to fall.
     * Aligned, a kernel's blocks depend on its instructions only; one longer than a page starts on one.
     * Aligning a kernel moves the ones after it: the kernels to align are found in one walk over the
     * first assembly's lengths, and the layout is assembled again until no unaligned kernel crosses
     * (once, unless a position-dependent {@code .balign} moved something; each pass only adds kernels,
     * so this ends). A full probe (819 kernels) takes two assemblies, not four.
     */
    private static Assembly assembleWithoutPageCrossings(List<KernelSpec> kernels, Schedule schedule,
            Map<String, Long> dataLabels) {
        Set<Integer> pageAligned = new java.util.TreeSet<>();
        Assembly asm = Assembler.assemble(source(kernels, schedule, pageAligned), "probe.s", TEXT_ADDRESS, dataLabels);
        pageAligned.addAll(crossingAfterAlignment(kernels.size(), asm.labels()));
        while (!pageAligned.isEmpty()) {
            asm = Assembler.assemble(source(kernels, schedule, pageAligned), "probe.s", TEXT_ADDRESS, dataLabels);
            boolean moved = false;
            for (int i = 0; i < kernels.size(); i++) {
                moved |= crosses(asm.labels(), i) && pageAligned.add(i);
            }
            if (!moved) {
                break;
            }
        }
        return asm;
    }

    /** Whether kernel {@code i} crosses a page boundary without starting on a page. */
    private static boolean crosses(Map<String, Long> labels, int i) {
        long start = labels.get("kern_" + i);
        long last = labels.get("kern_" + i + "_exit") - 1;
        return start / PAGE != last / PAGE && start % PAGE != 0;
    }

    /**
     * The kernels that cross a page when each one that would is moved to the next page, walking an
     * unaligned layout's kernel lengths and the code between kernels in address order.
     */
    private static Set<Integer> crossingAfterAlignment(int count, Map<String, Long> labels) {
        Set<Integer> out = new java.util.TreeSet<>();
        long shift = 0;
        for (int i = 0; i < count; i++) {
            long start = labels.get("kern_" + i) + shift;
            long length = labels.get("kern_" + i + "_exit") - labels.get("kern_" + i);
            if (start / PAGE != (start + length - 1) / PAGE && start % PAGE != 0) {
                out.add(i);
                shift += PAGE - start % PAGE;
            }
        }
        return out;
    }

    /** The whole program as listing text; the kernels {@code pageAligned} indexes start on a page. */
    private static String source(List<KernelSpec> specs, Schedule schedule, Set<Integer> pageAligned) {
        List<Context> kernels = specs.stream().map(KernelSpec::context).toList();
        StringBuilder s = new StringBuilder(1 << 20);
        s.append(".target ").append(target(kernels)).append("\n.option norvc\n_start:\n");
        // calibration: rdtime and CLOCK_MONOTONIC at start (header bytes 0..31) and end (32..63)
        s.append("    lla tp, clock_header\n    rdtime t0\n    sd t0, 0(tp)\n");
        s.append("    li a0, 1\n    addi a1, tp, 8\n    li a7, 113\n    ecall\n");
        s.append("    lla tp, schedule\n    lla gp, clock_windows\n    li a3, ").append(schedule.windows.size()).append('\n');
        s.append("window:\n    ld t0, 0(tp)\n    jalr ra, 0(t0)\n    ld a6, 8(tp)\n    ld a7, 16(tp)\n");
        s.append("    rdtime t0\n    sd t0, 0(gp)\n");
        s.append("    slti zero, zero, 0x5a1\n");
        s.append("call:\n    jalr ra, 0(a6)\n    addi a7, a7, -1\n    bnez a7, call\n");
        s.append("    slti zero, zero, 0x5a0\n");
        s.append("    rdtime t0\n    sd t0, 8(gp)\n    addi gp, gp, 16\n    addi tp, tp, 24\n");
        s.append("    addi a3, a3, -1\n    bnez a3, window\n");
        s.append("    lla tp, clock_header\n    li a0, 1\n    addi a1, tp, 40\n    li a7, 113\n    ecall\n");
        s.append("    rdtime t0\n    sd t0, 32(tp)\n");
        s.append("    li a0, 1\n    mv a1, tp\n    li a2, ")
                .append(CLOCK_HEADER_BYTES + 16L * schedule.windows.size()).append('\n');
        s.append("    li a7, 64\n    ecall\n    li a0, 0\n    li a7, 93\n    ecall\n");

        for (int i = 0; i < kernels.size(); i++) {
            // M-mode functions on pages of their own (system mode runs them through the monitor)
            if (kernels.get(i).machineMode() != (i > 0 && kernels.get(i - 1).machineMode())) {
                s.append(".balign 4096\n");
            }
            setup(s, i, kernels.get(i));
            if (pageAligned.contains(i)) {
                s.append(".balign 4096\n"); // after the setup's return: the padding never runs
            }
            kernel(s, i, kernels.get(i), specs.get(i).slots());
        }
        if (!kernels.isEmpty() && kernels.get(kernels.size() - 1).machineMode()) {
            s.append(".balign 4096\n");
        }

        return s.toString();
    }

    /** Per-context setup, run before the start marker: the register conventions, fcsr, one-time setup. */
    private static void setup(StringBuilder s, int i, Context c) {
        s.append("setup_").append(i).append(":\n");
        s.append("    li a0, 1000003\n    li a1, 1\n    li a2, 2\n    lla s0, hot\n    li s1, 1\n");
        boolean single = singlePrecisionSources(c.mnemonic());
        s.append("    lla t0, ").append(single ? "fconst_s" : "fconst_d").append('\n');
        String load = single ? "flw" : "fld";
        int step = single ? 4 : 8;
        s.append("    ").append(load).append(" fa0, 0(t0)\n    ").append(load).append(" fa1, 0(t0)\n");
        s.append("    ").append(load).append(" fa2, ").append(step).append("(t0)\n    ").append(load)
                .append(" fa3, ").append(2 * step).append("(t0)\n");
        s.append("    li t0, ").append(fcsr(c)).append("\n    fscsr t0\n");
        if (!perSlotSetup(c)) {
            for (String line : c.setup()) {
                s.append("    ").append(line).append('\n');
            }
        }
        s.append("    ret\n");
    }

    /** A kernel: {@code slots} slots between a fixed prologue and an epilogue that reads every result. */
    private static void kernel(StringBuilder s, int i, Context c, int slots) {
        s.append("kern_").append(i).append(":\n    mv t1, ra\n    mv t2, sp\n");
        boolean compressed = c.form() == Context.Form.COMPRESSED;
        boolean perSlot = perSlotSetup(c);
        for (int slot = 0; slot < slots; slot++) {
            // a named label per slot end where the slot branches to it (the assembler resolves numeric
            // local labels by scanning); none elsewhere: a full probe has hundreds of thousands of slots
            String next = "n" + i + "_" + slot;
            boolean branchesToNext = false;
            if (perSlot) {
                for (String line : c.setup()) {
                    branchesToNext |= NEXT_SLOT.matcher(line).find();
                    s.append("    ").append(NEXT_SLOT.matcher(line).replaceAll(next)).append('\n');
                }
            }
            if (compressed) {
                s.append(".option rvc\n");
            }
            String slotText = slotText(c, slot);
            branchesToNext |= NEXT_SLOT.matcher(slotText).find();
            s.append("    ").append(NEXT_SLOT.matcher(slotText).replaceAll(next)).append('\n');
            if (branchesToNext) {
                s.append(next).append(":\n");
            }
            if (compressed) {
                s.append(".option norvc\n");
            }
        }
        s.append("kern_").append(i).append("_end:\n");
        s.append("    mv sp, t2\n    li t0, 0\n");
        for (String r : ACCUMULATED_INT) {
            s.append("    xor t0, t0, ").append(r).append('\n');
        }
        for (String r : ACCUMULATED_FP) {
            s.append("    fmv.x.d ra, ").append(r).append("\n    xor t0, t0, ra\n");
        }
        s.append("    sd t0, 248(s0)\n    jalr zero, 0(t1)\n");
        s.append("kern_").append(i).append("_exit:\n");
    }

    /** The slot with its rotating registers, and branch offsets to the next slot as {@code 1f}. */
    static String slotText(Context c, int slot) {
        String text = c.slotWith(INT_ROTATION.get(slot % INT_ROTATION.size()), FP_ROTATION.get(slot % FP_ROTATION.size()));
        Matcher m = BRANCH_OFFSET.matcher(text.trim());
        if (isBranchPattern(c) && m.matches()) {
            String head = m.group(1);
            text = head + (head.endsWith(",") ? " 1f" : " 1f");
        }
        return text;
    }

    private static boolean isBranchPattern(Context c) {
        return switch (c.pattern()) {
            case TAKEN, NOT_TAKEN, MISPREDICTED, DIRECT_JUMP, CALL -> true;
            default -> false;
        };
    }

    /** Setup that names the slot's own label, or an LR that pairs with each SC, runs before every slot. */
    static boolean perSlotSetup(Context c) {
        return c.pattern() == Context.Pattern.RESERVATION_PAIR || c.setup().stream().anyMatch(l -> l.contains("1f"))
                || "per-slot".equals(c.modifiers().get(Context.SETUP));
    }

    /**
     * The probe's {@code .target}: rv64gc with Zba, Zbb and Zbs, as always, plus the extensions of
     * contexts that need a CPU model of their own (V, Zfh, Zbc, Zbkb, Zbkx, the scalar crypto Zk*) when there
     * are such kernels.
     */
    static String target(List<Context> kernels) {
        Set<String> extra = new java.util.TreeSet<>();
        boolean vector = false;
        for (Context c : kernels) {
            switch (c.extension()) {
                case "v" -> vector = true;
                case "zfh", "zbc", "zbkb", "zbkx", "zknd", "zkne", "zknh", "zksed", "zksh", "zkr" -> extra.add(c.extension());
                default -> { }
            }
        }
        StringBuilder t = new StringBuilder(vector ? "rv64gcv_zba_zbb_zbs" : "rv64gc_zba_zbb_zbs");
        extra.forEach(e -> t.append('_').append(e));
        return t.toString();
    }

    /** The slot encodings (every rotating register), assembled alone: slots are position independent. */
    private static Set<Long> slotEncodings(Context c) {
        // slot i uses INT_ROTATION[i % 14] and FP_ROTATION[i % 8]: 56 slots show every combination
        StringBuilder text = new StringBuilder(".target ").append(target(List.of(c))).append('\n');
        text.append(c.form() == Context.Form.COMPRESSED ? ".option rvc\n" : ".option norvc\n");
        for (int slot = 0; slot < 56; slot++) {
            text.append("    ").append(slotText(c, slot)).append("\n1:\n");
        }
        byte[] b = Assembler.assemble(text.toString(), c.key() + ".slot", 0x10000L, Map.of()).bytes();
        return new java.util.TreeSet<>(encodings(b, 0, b.length).keySet());
    }

    /** Executions per raw encoding of straight-line code: (size << 32 | encoding) -> count. */
    static Map<Long, Long> encodings(byte[] code, int from, int to) {
        Map<Long, Long> out = new TreeMap<>();
        int p = from;
        while (p < to) {
            int low = (code[p] & 0xff) | (code[p + 1] & 0xff) << 8;
            long key;
            if ((low & 3) == 3) {
                long word = low | (long) (code[p + 2] & 0xff) << 16 | (long) (code[p + 3] & 0xff) << 24;
                key = 4L << 32 | word;
                p += 4;
            } else {
                key = 2L << 32 | low;
                p += 2;
            }
            out.merge(key, 1L, Long::sum);
        }
        return out;
    }

    private static long align(long v, long a) {
        return (v + a - 1) / a * a;
    }

    /** Whether the slot's FP sources are single precision (NaN-boxed floats instead of doubles). */
    static boolean singlePrecisionSources(String mnemonic) {
        String last = "";
        for (String part : mnemonic.toLowerCase(Locale.ROOT).split("\\.")) {
            if (part.equals("s") || part.equals("d") || part.equals("h")) {
                last = part;
            }
        }
        return last.equals("s") || mnemonic.equals("fmv.x.w") || mnemonic.equals("c.flw") || mnemonic.equals("fsw");
    }

    /** fcsr before the window: frm from the {@code rm} modifier (static rtz needs nothing), NX from {@code fflags}. */
    static int fcsr(Context c) {
        int flags = "nx-set".equals(c.modifiers().get("fflags")) ? 1 : 0;
        return flags;
    }
}

