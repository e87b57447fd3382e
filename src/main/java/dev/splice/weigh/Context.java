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
 * @param extension lower-case extension name (i, m, a, f, d, c, zicsr, zifencei, zba, zbb, zbs, zicond)
 * @param form full (4-byte) or compressed (2-byte) slot instruction
 * @param pattern how the kernel repeats the slot
 * @param modifiers behaviour-changing settings (fflags, rm, csr, order, pred, succ), in table order
 * @param baseline the key of the context this one is measured against; empty for a root baseline
 * @param runsOnQemu whether qemu-riscv64 7.2 executes the instruction (false: it raises SIGILL)
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

    public Context {
        modifiers = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(modifiers));
        setup = List.copyOf(setup);
    }

    /** Slot size. */
    public enum Form {
        FULL("full", 4),
        COMPRESSED("compressed", 2);

        private final String label;
        private final int size;

        Form(String label, int size) {
            this.label = label;
            this.size = size;
        }

        public String label() {
            return label;
        }

        public int size() {
            return size;
        }
    }

    /** Execution patterns: how a kernel repeats its slot (see docs/contexts.md). */
    public enum Pattern {
        BASELINE("baseline"),
        DEPENDENCY("dependency"),
        INDEPENDENT("independent"),
        HOT_LOAD("hot-load"),
        HOT_STORE("hot-store"),
        STACK("stack"),
        STACK_LOAD("stack-load"),
        STACK_STORE("stack-store"),
        TAKEN("taken"),
        NOT_TAKEN("not-taken"),
        DIRECT_JUMP("direct-jump"),
        INDIRECT_JUMP("indirect-jump"),
        CALL("call"),
        RET("ret"),
        RESERVATION("reservation"),
        RESERVATION_PAIR("reservation-pair"),
        AMO("amo"),
        CONVERT("convert"),
        COMPARE("compare"),
        CLASSIFY("classify"),
        MOVE("move"),
        CSR_READ("csr-read"),
        CSR_WRITE("csr-write"),
        FENCE("fence");

        private final String label;

        Pattern(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }
    }

    /** The slot with its placeholders replaced by concrete registers. */
    public String slotWith(String integerRegister, String floatRegister) {
        return slot.replace("{x}", integerRegister).replace("{f}", floatRegister);
    }
}
