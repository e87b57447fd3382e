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
        return profile(ElfFile.read(binary), PluginFixtures.singleStepPcs(qemuOptions, binary), 0);
    }

    /**
     * The profile of one module of a dynamically linked run, in the module's own addresses: the
     * executable {@code program} itself ({@code module} equal to it: the load bias is where QEMU
     * logs {@code main}) or a shared library it loads (the bias is the address of the loader's
     * first mapping of the file, from QEMU's {@code -strace} lines in its log). Code outside the module (the
     * loader, other libraries) is address 0, which perf2bolt-22 counts as {@code [unknown]}: a
     * call out of the module is {@code B from 0}, the return {@code B 0 to}.
     *
     * @param program the RISC-V executable to run
     * @param qemuOptions options for qemu-riscv64 ({@code -L SYSROOT}, {@code -E LD_LIBRARY_PATH=...})
     * @param module the program or one of its shared libraries
     * @return pre-aggregated profile text
     */
    public static String recordModule(Path program, List<String> qemuOptions, Path module) {
        try {
            Path log = java.nio.file.Files.createTempFile("splice-exec", ".log");
            try {
                List<String> command = new java.util.ArrayList<>(List.of(Tools.require("qemu-riscv64"), "-strace",
                        "-singlestep", "-d", "exec,nochain", "-D", log.toString()));
                command.addAll(qemuOptions);
                command.add(program.toString());
                Tools.run(command, null, 300);
                List<Long> pcs = new java.util.ArrayList<>();
                long mainAt = -1;
                StringBuilder strace = new StringBuilder(); // -strace writes to the log too
                try (var lines = java.nio.file.Files.lines(log)) {
                    for (String l : (Iterable<String>) lines::iterator) {
                        if (!l.startsWith("Trace ")) {
                            strace.append(l).append('\n');
                        } else {
                            long pc = Long.parseUnsignedLong(l.substring(l.indexOf('[') + 1, l.indexOf(']')).split("/")[1], 16);
                            pcs.add(pc);
                            if (mainAt < 0 && l.endsWith("] main")) {
                                mainAt = pc;
                            }
                        }
                    }
                }
                ElfFile elf = ElfFile.read(module);
                long bias;
                if (module.equals(program)) {
                    if (mainAt < 0) {
                        throw new AssertionError("QEMU logged no execution of main in " + program);
                    }
                    bias = mainAt - elf.function("main").orElseThrow().address();
                } else {
                    bias = firstMapping(strace.toString(), module.getFileName().toString());
                }
                return profile(elf, pcs, bias);
            } finally {
                java.nio.file.Files.deleteIfExists(log);
            }
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The address of the first {@code mmap} of the file descriptor QEMU's strace shows {@code name} opened on. */
    private static long firstMapping(String strace, String name) {
        java.util.regex.Matcher open = java.util.regex.Pattern.compile(
                "openat\\(AT_FDCWD,\"[^\"]*/" + java.util.regex.Pattern.quote(name) + "\",[^)]*\\) = (\\d+)").matcher(strace);
        if (!open.find()) {
            throw new AssertionError("the run opened no " + name + ":\n" + strace);
        }
        java.util.regex.Matcher map = java.util.regex.Pattern.compile("mmap\\(NULL,\\d+,[^,]+,[^,]+," + open.group(1)
                + ",0\\) = 0x([0-9a-f]+)").matcher(strace);
        if (!map.find(open.end())) {
            throw new AssertionError("no mapping of " + name + " follows its openat:\n" + strace);
        }
        return Long.parseUnsignedLong(map.group(1), 16);
    }

    /**
     * The B and F records of the executed {@code pcs}, moved back by {@code bias}; addresses
     * outside {@code elf}'s code become 0 and leave or enter the module.
     */
    private static String profile(ElfFile elf, List<Long> pcs, long bias) {
        List<Section> code = elf.sections().stream().filter(Section::isExecutable).toList();
        List<byte[]> bytes = code.stream().map(elf::contents).toList();
        Map<String, Long> branches = new TreeMap<>();
        Map<String, Long> ranges = new TreeMap<>();
        long rangeStart = -1;
        for (int i = 0; i + 1 < pcs.size(); i++) {
            long pc = inside(code, pcs.get(i) - bias);
            long next = inside(code, pcs.get(i + 1) - bias);
            if (pc == 0 && next == 0) {
                continue;
            }
            if (pc != 0 && next == pc + length(code, bytes, pc) && !isJump(code, bytes, pc)) {
                continue;
            }
            branches.merge(String.format("B %x %x", pc, next), 1L, Long::sum);
            if (rangeStart > 0 && pc != 0) {
                ranges.merge(String.format("F %x %x", rangeStart, pc), 1L, Long::sum);
            }
            rangeStart = next;
        }
        StringBuilder out = new StringBuilder();
        branches.forEach((k, n) -> out.append(k).append(' ').append(n).append(" 0\n"));
        ranges.forEach((k, n) -> out.append(k).append(' ').append(n).append('\n'));
        return out.toString();
    }

    /** {@code address} if it lies in one of the {@code code} sections, else 0. */
    private static long inside(List<Section> code, long address) {
        for (Section s : code) {
            if (address - s.address() >= 0 && address - s.address() < s.size()) {
                return address;
            }
        }
        return 0;
    }

    /**
     * Whether the instruction at {@code pc} is an unconditional jump ({@code jal}, {@code jalr},
     * {@code c.j}, {@code c.jr}, {@code c.jalr}): taken even when its target is the next
     * instruction (a copy laid out right before its jump's target; a computed goto to the label
     * after it, as in {@code lib_dispatch}), as a last-branch record has it.
     */
    private static boolean isJump(List<Section> code, List<byte[]> bytes, long pc) {
        for (int i = 0; i < code.size(); i++) {
            Section s = code.get(i);
            if (pc >= s.address() && pc < s.address() + s.size()) {
                byte[] b = bytes.get(i);
                int at = (int) (pc - s.address());
                int low = b[at] & 0xff;
                int parcel = low | (b[at + 1] & 0xff) << 8;
                if ((low & 3) == 3) {
                    return (low & 0x7f) == 0x6f || (low & 0x7f) == 0x67;
                }
                boolean cJ = (parcel & 3) == 1 && parcel >>> 13 == 5;
                int funct4 = parcel >>> 12;
                boolean cJr = (parcel & 3) == 2 && (funct4 == 8 || funct4 == 9)
                        && (parcel >>> 2 & 0x1f) == 0 && (parcel >>> 7 & 0x1f) != 0;
                return cJ || cJr;
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
