package dev.splice.testing;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.weigh.PluginFixtures;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An exact branch profile of one run under QEMU, as pre-aggregated perf2bolt records: every taken
 * control transfer (the next executed instruction is not the one after it, or a direct jump) is a {@code B from to}
 * record, and the straight-line run between two of them an {@code F from to} record, as a
 * last-branch record would report them with no sampling. QEMU single-steps the program and logs
 * every instruction it executes ({@code -singlestep -d exec,nochain}).
 */
public final class BranchTrace {
    private BranchTrace() {}

    /**
     * The profile of one run of {@code binary}, with {@code B} and {@code F} lines sorted by address.
     *
     * @param binary a RISC-V executable
     * @return pre-aggregated profile text
     */
    public static String record(Path binary) {
        return record(binary, List.of());
    }

    /**
     * The same, with QEMU options before the binary ({@code -E VAR=VALUE} for the guest's environment).
     *
     * @param binary a RISC-V executable
     * @param qemuOptions options for qemu-riscv64
     * @return pre-aggregated profile text
     */
    public static String record(Path binary, List<String> qemuOptions) {
        ElfFile elf = ElfFile.read(binary);
        List<Section> code = elf.sections().stream().filter(Section::isExecutable).toList();
        List<byte[]> bytes = code.stream().map(elf::contents).toList();
        List<Long> pcs = PluginFixtures.singleStepPcs(qemuOptions, binary);
        Map<String, Long> branches = new TreeMap<>();
        Map<String, Long> ranges = new TreeMap<>();
        long rangeStart = -1;
        for (int i = 0; i + 1 < pcs.size(); i++) {
            long pc = pcs.get(i);
            long next = pcs.get(i + 1);
            if (next == pc + length(code, bytes, pc) && !isDirectJump(code, bytes, pc)) {
                continue;
            }
            branches.merge(String.format("B %x %x", pc, next), 1L, Long::sum);
            if (rangeStart >= 0) {
                ranges.merge(String.format("F %x %x", rangeStart, pc), 1L, Long::sum);
            }
            rangeStart = next;
        }
        StringBuilder out = new StringBuilder();
        branches.forEach((k, n) -> out.append(k).append(' ').append(n).append(" 0\n"));
        ranges.forEach((k, n) -> out.append(k).append(' ').append(n).append('\n'));
        return out.toString();
    }

    /**
     * Whether the instruction at {@code pc} is {@code jal} or {@code c.j}: taken even when its
     * target is the next instruction (a copy laid out right before its jump's target), as a
     * last-branch record has it.
     */
    private static boolean isDirectJump(List<Section> code, List<byte[]> bytes, long pc) {
        for (int i = 0; i < code.size(); i++) {
            Section s = code.get(i);
            if (pc >= s.address() && pc < s.address() + s.size()) {
                byte[] b = bytes.get(i);
                int at = (int) (pc - s.address());
                int low = b[at] & 0xff;
                int parcel = low | (b[at + 1] & 0xff) << 8;
                return (low & 3) == 3 ? (low & 0x7f) == 0x6f : (parcel & 3) == 1 && parcel >>> 13 == 5;
            }
        }
        return false;
    }

    /** The length of the instruction at {@code pc} (2 or 4 bytes, from its low bits). */
    private static int length(List<Section> code, List<byte[]> bytes, long pc) {
        for (int i = 0; i < code.size(); i++) {
            Section s = code.get(i);
            if (pc >= s.address() && pc < s.address() + s.size()) {
                return (bytes.get(i)[(int) (pc - s.address())] & 3) == 3 ? 4 : 2;
            }
        }
        throw new AssertionError("executed 0x" + Long.toHexString(pc) + " outside the code sections");
    }
}
