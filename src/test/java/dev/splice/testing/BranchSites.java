package dev.splice.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The direct branch and call sites of a binary, with their targets and the function they are in,
 * as llvm-objdump-22 disassembles them (an oracle independent of Splice).
 */
public record BranchSites(List<Site> sites, List<Instruction> instructions) {
    public record Site(long address, long target, String mnemonic) {}

    public record Instruction(long address, String mnemonic, String function) {}

    private static final Pattern FUNCTION = Pattern.compile("^([0-9a-f]+) <(.*)>:$");
    private static final Pattern LINE = Pattern.compile("^\\s+([0-9a-f]+):\\s+(\\S+)(?:\\s+(.*))?$");
    private static final Pattern TARGET = Pattern.compile("(?:^|[\\s,])(?:0x)?([0-9a-f]+) <");

    // One llvm-objdump run per binary and test JVM: the binaries do not change during the tests.
    private static final java.util.Map<Path, BranchSites> DISASSEMBLED = new java.util.concurrent.ConcurrentHashMap<>();

    public static BranchSites of(Path binary) {
        return DISASSEMBLED.computeIfAbsent(binary.toAbsolutePath().normalize(), BranchSites::disassemble);
    }

    private static BranchSites disassemble(Path binary) {
        String text = Tools.run("llvm-objdump-22", "-d", "--no-show-raw-insn", binary.toString()).checked("llvm-objdump-22").stdout();
        List<Site> sites = new ArrayList<>();
        List<Instruction> instructions = new ArrayList<>();
        String function = null;
        for (String line : text.split("\n")) {
            Matcher f = FUNCTION.matcher(line);
            if (f.matches()) {
                function = f.group(2);
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            long address = Long.parseUnsignedLong(m.group(1), 16);
            String mnemonic = m.group(2);
            instructions.add(new Instruction(address, mnemonic, function));
            String operands = m.group(3) == null ? "" : m.group(3);
            boolean control = mnemonic.startsWith("j") || mnemonic.startsWith("b") || mnemonic.startsWith("call")
                    || mnemonic.startsWith("c.j") || mnemonic.startsWith("c.b") || mnemonic.equals("tail");
            if (!control || operands.contains("*")) {
                continue;
            }
            Matcher t = TARGET.matcher(operands);
            if (t.find()) {
                sites.add(new Site(address, Long.parseUnsignedLong(t.group(1), 16), mnemonic));
            }
        }
        return new BranchSites(sites, instructions);
    }
}
