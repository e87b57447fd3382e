package dev.splice.patch;

import dev.splice.testing.Tools;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A binary's functions and instructions as GNU objdump shows them, an oracle independent of
 * Splice: the FUNC symbols of {@code objdump -t} and the instructions of {@code objdump -d -M
 * no-aliases} (exact mnemonics: {@code c.jr}, {@code jal}, never {@code ret} or {@code j}).
 */
record ObjdumpCode(List<Func> functions, NavigableMap<Long, Insn> instructions) {
    /** A FUNC symbol with a size in an executable section, and every FUNC name at its address (aliases). */
    record Func(String name, long address, long size, List<String> names) {
        boolean contains(long a) {
            return a >= address && a < address + size;
        }
    }

    /** One instruction: mnemonic, operand text, and the direct target objdump prints ({@code <...>}), or -1. */
    record Insn(long address, int size, String mnemonic, String operands, long target) {
        /** The register before the first comma (a destination), or the only operand. */
        String firstRegister() {
            int comma = operands.indexOf(',');
            return comma < 0 ? operands.trim() : operands.substring(0, comma).trim();
        }

        /** jalr's base register: {@code jalr rd,imm(rs1)}; c.jr and c.jalr name it alone. */
        String base() {
            int open = operands.indexOf('(');
            return open < 0 ? firstRegister() : operands.substring(open + 1, operands.indexOf(')'));
        }
    }

    private static final Pattern SYMBOL = Pattern.compile("^([0-9a-f]+) (.{7}) (\\S+)\\s+([0-9a-f]+)\\s+(.*)$");
    private static final Pattern LINE = Pattern.compile("^\\s+([0-9a-f]+):\\s+([0-9a-f]+)\\s+(\\S+)(?:\\s+(.*))?$");
    private static final Pattern TARGET = Pattern.compile("([0-9a-f]+) <[^>]*>\\s*$");
    private static final Map<Path, ObjdumpCode> READ = new ConcurrentHashMap<>();

    static ObjdumpCode of(Path binary) {
        return READ.computeIfAbsent(binary.toAbsolutePath().normalize(), ObjdumpCode::read);
    }

    private static ObjdumpCode read(Path binary) {
        String symbols = Tools.run("riscv64-linux-gnu-objdump", "-t", binary.toString()).checked("objdump -t").stdout();
        List<Func> functions = new ArrayList<>();
        TreeMap<Long, Func> byAddress = new TreeMap<>();
        for (String line : symbols.split("\n")) {
            Matcher m = SYMBOL.matcher(line);
            boolean code = m.matches() && (m.group(3).equals(".text") || m.group(3).equals("__libc_freeres_fn"));
            if (code && m.group(2).charAt(6) == 'F') {
                long size = Long.parseUnsignedLong(m.group(4), 16);
                long address = Long.parseUnsignedLong(m.group(1), 16);
                String name = m.group(5).trim().replaceFirst("^\\.(hidden|protected|internal) ", "");
                Func known = byAddress.get(address);
                if (known != null) {
                    known.names().add(name);
                } else if (size > 0) {
                    byAddress.put(address, new Func(name, address, size, new ArrayList<>(List.of(name))));
                }
            }
        }
        functions.addAll(byAddress.values());
        String text = Tools.run("riscv64-linux-gnu-objdump", "-d", "-M", "no-aliases", binary.toString())
                .checked("objdump -d").stdout();
        TreeMap<Long, Insn> instructions = new TreeMap<>();
        for (String line : text.split("\n")) {
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            String operands = m.group(4) == null ? "" : m.group(4).replaceAll("\\s*#.*$", "");
            Matcher t = TARGET.matcher(operands);
            long target = t.find() ? Long.parseUnsignedLong(t.group(1), 16) : -1;
            long address = Long.parseUnsignedLong(m.group(1), 16);
            instructions.put(address, new Insn(address, m.group(2).length() / 2, m.group(3), operands, target));
        }
        return new ObjdumpCode(List.copyOf(functions), instructions);
    }

    /** The instructions of a function, in address order. */
    List<Insn> in(Func f) {
        return List.copyOf(instructions.subMap(f.address(), f.address() + f.size()).values());
    }
}
