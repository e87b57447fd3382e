package dev.splice.weigh;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One measurement context: a semantic key plus the execution pattern a probe kernel repeats
 * (issue 4 section 1; the table is {@code contexts.tsv}, documented in docs/contexts.md).
 *
 * @param key semantic key: the slot's assembly mnemonic, '.', then pattern and modifiers
 * @param mnemonic the canonical (no-alias) mnemonic of the slot instruction
 * @param extension lower-case extension name (i, m, a, f, d, c, zicsr, zifencei, zba, zbb, zbs, zicond, zfh, zbc, zbkb, zbkx, v,
 *     zknd, zkne, zknh, zksed, zksh, zkr)
 * @param form full (4-byte) or compressed (2-byte) slot instruction
 * @param pattern how the kernel repeats the slot
 * @param modifiers behaviour-changing settings (fflags, rm, csr, order, pred, succ), in table order
 * @param baseline the key of the context this one is measured against; empty for a root baseline
 * @param runsOnQemu whether qemu-riscv64 7.2 executes the instruction (false: it raises SIGILL, or the
 *     context needs system mode: {@link #systemOnly()})
 * @param setup assembly lines run once before the slots, outside the markers; {@code 1f} names
 *     the label right after the slot
 * @param slot the target instruction; {@code {x}} and {@code {f}} stand for a rotating integer
 *     or floating-point destination register
 */
public record Context(
        String key,
        String mnemonic,
        String extension,
        Form form,
        Pattern pattern,
        Map<String, String> modifiers,
        Optional<String> baseline,
        boolean runsOnQemu,
        List<String> setup,
        String slot) {

    /**
     * Copies the modifiers (keeping their order) and the setup.
     *
     * @param key see {@link #key()}
     * @param mnemonic see {@link #mnemonic()}
     * @param extension see {@link #extension()}
     * @param form see {@link #form()}
     * @param pattern see {@link #pattern()}
     * @param modifiers see {@link #modifiers()}
     * @param baseline see {@link #baseline()}
     * @param runsOnQemu see {@link #runsOnQemu()}
     * @param setup see {@link #setup()}
     * @param slot see {@link #slot()}
     */
    public Context {
        modifiers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(modifiers));
        setup = List.copyOf(setup);
    }

    /**
     * The modifier naming the privilege a system-mode context runs its probe in ({@code priv=s}):
     * the context needs {@code qemu-system-riscv64} (docs/weigh-system.md), its {@code qemu}
     * column is {@code system}.
     */
    public static final String PRIVILEGE = "priv";
    /**
     * The modifier naming the {@code qemu-riscv64 -cpu} model a context needs ({@code
     * cpu=rv64,v=true,vlen=128,vext_spec=v1.0}): QEMU's default CPU lacks its extension.
     */
    public static final String CPU = "cpu";
    /** The modifier {@code setup=per-slot}: the setup runs before every slot, inside the kernel. */
    public static final String SETUP = "setup";
    /**
     * The modifier {@code harts=2}: the system-mode probe runs on two harts, the second contending
     * for the contended line (docs/weigh-system.md).
     */
    public static final String HARTS = "harts";
    /**
     * The modifier of the user-mode pointer-chase contexts ({@code working-set=524288}): the bytes of
     * the ring their loads chase through, sized for one level of the host's memory hierarchy.
     */
    public static final String WORKING_SET = "working-set";

    /**
     * The working set of a pointer-chase context.
     *
     * @return the {@code working-set} modifier in bytes, or empty when the context has none
     */
    public java.util.OptionalLong workingSetBytes() {
        String v = modifiers.get(WORKING_SET);
        return v == null ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(Long.parseLong(v));
    }

    /**
     * Whether only system mode can measure the context (CSRs of S-mode, traps, TLB misses, page faults).
     *
     * @return true when the context has a {@code priv} modifier
     */
    public boolean systemOnly() {
        return modifiers.containsKey(PRIVILEGE);
    }

    /**
     * Whether the context's setup and kernel run in M-mode ({@code priv=m}): in system mode they are
     * placed on pages of their own and entered from the S-mode probe through the monitor
     * (docs/weigh-system.md).
     *
     * @return true for {@code priv=m}
     */
    public boolean machineMode() {
        return "m".equals(modifiers.get(PRIVILEGE));
    }

    /**
     * How many harts the context's system-mode probe needs.
     *
     * @return 2 for {@code harts=2}, else 1
     */
    public int harts() {
        return "2".equals(modifiers.get(HARTS)) ? 2 : 1;
    }

    /**
     * The QEMU CPU model the context needs.
     *
     * @return the {@code cpu} modifier's model, empty when QEMU's default CPU runs the context
     */
    public Optional<String> cpu() {
        return Optional.ofNullable(modifiers.get(CPU));
    }

    /** Slot size. */
    public enum Form {
        /** A 4-byte slot instruction. */
        FULL("full", 4),
        /** A 2-byte (C extension) slot instruction. */
        COMPRESSED("compressed", 2);

        private final String label;
        private final int size;

        Form(String label, int size) {
            this.label = label;
            this.size = size;
        }

        /**
         * The form's name in the table.
         *
         * @return {@code full} or {@code compressed}
         */
        public String label() {
            return label;
        }

        /**
         * The slot's size.
         *
         * @return 4 or 2 bytes
         */
        public int size() {
            return size;
        }
    }

    /** Execution patterns: how a kernel repeats its slot (see docs/contexts.md). */
    public enum Pattern {
        /** A root baseline ({@code nop}, {@code c.nop}). */
        BASELINE("baseline"),
        /** Each slot reads the previous slot's result. */
        DEPENDENCY("dependency"),
        /** Slots rotate through 14 destination registers; most read their own (14 interleaved chains, every result live). */
        INDEPENDENT("independent"),
        /** Loads on the hot buffer. */
        HOT_LOAD("hot-load"),
        /** Stores on the hot buffer. */
        HOT_STORE("hot-store"),
        /** {@code sp}-relative forms. */
        STACK("stack"),
        /** {@code sp}-relative loads. */
        STACK_LOAD("stack-load"),
        /** {@code sp}-relative stores. */
        STACK_STORE("stack-store"),
        /** A conditional branch to the next slot, taken. */
        TAKEN("taken"),
        /** A conditional branch to the next slot, not taken. */
        NOT_TAKEN("not-taken"),
        /** A direct jump to the next slot. */
        DIRECT_JUMP("direct-jump"),
        /** An indirect jump to the next slot through a register. */
        INDIRECT_JUMP("indirect-jump"),
        /** An indirect call to the next slot. */
        CALL("call"),
        /** A return to the next slot. */
        RET("ret"),
        /** {@code lr} on the hot buffer. */
        RESERVATION("reservation"),
        /** {@code sc} after an {@code lr} to the same address. */
        RESERVATION_PAIR("reservation-pair"),
        /** An AMO on the hot buffer. */
        AMO("amo"),
        /**
         * A store to a page the run has not touched (the probe's fresh-page region, a cursor one page on
         * per slot): the host's page fault on the first touch of an anonymous page; measured against the
         * same setup and a store to a resident word.
         */
        FIRST_TOUCH("first-touch"),
        /**
         * A conditional branch to the next slot on a fair coin (the top bit of a linear congruential
         * generator the setup advances per slot), mispredicted half the time by any predictor; measured
         * against the same setup and a {@code bne} on the generator's lowest bit, which alternates, so every
         * slot's branch keeps one direction the host predicts, and half the slots are taken in both.
         */
        MISPREDICTED("mispredicted"),
        /** FP conversions. */
        CONVERT("convert"),
        /** FP comparisons. */
        COMPARE("compare"),
        /** {@code fclass}. */
        CLASSIFY("classify"),
        /** Moves between register files. */
        MOVE("move"),
        /** CSR reads. */
        CSR_READ("csr-read"),
        /** CSR writes. */
        CSR_WRITE("csr-write"),
        /** Fences with their predecessor and successor sets. */
        FENCE("fence"),
        // system mode only (docs/weigh-system.md)
        /** A trap the monitor returns from at once ({@code ecall}, {@code ebreak}, an illegal instruction). */
        TRAP("trap"),
        /** Loads through self-pointers on two always-mapped pages ({@code ld x, 0(x)}). */
        POINTER_CHASE("pointer-chase"),
        /** The pointer-chase load after an {@code sfence.vma} before every slot: a page walk each time. */
        TLB_MISS("tlb-miss"),
        /** The pointer-chase load on two pages only one of which is mapped: a page fault, handled and retried. */
        PAGE_FAULT("page-fault"),
        /** A load from a device register (the CLINT's {@code mtime}). */
        MMIO_LOAD("mmio-load"),
        /** {@code wfi} with an interrupt pending and masked, so it returns at once. */
        WAIT("wait"),
        /** A HINT in an M-mode kernel: entering and leaving M-mode once per call, the base of M-mode contexts. */
        MACHINE_ENTRY("machine-entry"),
        /** A write that makes an interrupt pending ({@code stimecmp} in the past): taken, handled and returned. */
        INTERRUPT("interrupt");

        private final String label;

        Pattern(String label) {
            this.label = label;
        }

        /**
         * The pattern's name in the table and in context keys.
         *
         * @return e.g. {@code hot-load}
         */
        public String label() {
            return label;
        }
    }

    /**
     * The slot with its placeholders replaced by concrete registers.
     *
     * @param integerRegister replaces {@code {x}}
     * @param floatRegister replaces {@code {f}}
     * @return the slot's assembly
     */
    public String slotWith(String integerRegister, String floatRegister) {
        return slot.replace("{x}", integerRegister).replace("{f}", floatRegister);
    }

    /**
     * Whether the context measures TCG deleting dead code rather than the instruction: an
     * {@code independent} slot that does not read its own rotating register, so each result is
     * overwritten 14 slots later without being read and TCG's liveness pass drops all but the last
     * write of each register in a block ({@code lui}, {@code auipc}, {@code c.li}, {@code c.lui},
     * {@code c.mv}: nothing to chain through). Other independent slots read their destination, so
     * every result is live (14 interleaved chains, accumulated after the window). The table marks the
     * other slots TCG deletes with the modifier {@code tcg=dead}: floating-point moves and classifications
     * that write their rotating register from fixed sources ({@code fmv.d.x}, {@code fmv.x.d}, {@code fmv.w.x},
     * {@code fmv.x.w}: plain copies; {@code fclass}: a helper without side effects), whose result the
     * register's next write replaces unread or which copy what the register already holds
     * ({@code FoldedChainsTest} checks the marks against {@code qemu-riscv64 -d op_opt}).
     *
     * @return true for a slot whose results TCG can delete
     */
    public boolean measuresDeadCodeElimination() {
        if ("dead".equals(modifiers.get("tcg"))) {
            return true;
        }
        int x = slot.indexOf("{x}");
        int f = slot.indexOf("{f}");
        boolean readsX = x >= 0 && slot.indexOf("{x}", x + 1) > 0;
        boolean readsF = f >= 0 && slot.indexOf("{f}", f + 1) > 0;
        return pattern == Pattern.INDEPENDENT && !readsX && !readsF;
    }

    /**
     * Whether the context's chain is one TCG's optimizer folds, so it measures constant folding
     * rather than the instruction: the table marks it with the modifier {@code tcg=folds}. An
     * {@code and} with the same constant is idempotent ({@code andi}, {@code c.andi}: the second one
     * changes no bit the optimizer does not know), and a shift by a constant makes the value's known
     * zero bits grow until the whole value is the constant 0 ({@code slli}, {@code srli} and their
     * word and compressed forms). {@code FoldedChainsTest} checks the marks against QEMU's own
     * optimized TCG ({@code -d op_opt}).
     *
     * @return true for a context marked {@code tcg=folds}
     */
    public boolean measuresConstantFolding() {
        return "folds".equals(modifiers.get("tcg"));
    }

    /**
     * Whether the context measures TCG's optimizer (deleting dead code or folding constants) rather
     * than the instruction.
     *
     * @return {@link #measuresDeadCodeElimination()} or {@link #measuresConstantFolding()}
     */
    public boolean measuresTcgOptimizer() {
        return measuresDeadCodeElimination() || measuresConstantFolding();
    }
}
