import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes a fixed pre-aggregated profile (perf2bolt --pa) over a binary's functions for
 * tests/identical-outputs.sh: {@code llvm-objdump-22 -d --no-show-raw-insn BINARY | java Profile.java
 * SEED LINES}. The records are drawn (seeded) from the disassembly: B records at real direct branch
 * and call sites, B records between arbitrary instructions (returns, indirect jumps, and addresses no
 * branch has), F and f ranges inside a function and across functions, T traces, and S samples, so
 * that translation meets what it keeps, what it corrects and what it drops. Self-contained, so that
 * it depends on neither tree being compared.
 */
public final class Profile {
    private static final Pattern FUNCTION = Pattern.compile("^([0-9a-f]+) <(.*)>:$");
    private static final Pattern LINE = Pattern.compile("^\\s+([0-9a-f]+):\\s+(\\S+)(?:\\s+(.*))?$");
    private static final Pattern TARGET = Pattern.compile("(?:^|[\\s,])(?:0x)?([0-9a-f]+) <");

    private record Site(String from, String to) {}

    public static void main(String[] args) throws IOException {
        SplittableRandom rng = new SplittableRandom(Long.parseLong(args[0]));
        int lines = Integer.parseInt(args[1]);
        List<List<String>> functions = new ArrayList<>();
        List<Site> sites = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        List<String> current = null;
        for (String line; (line = in.readLine()) != null; ) {
            if (FUNCTION.matcher(line).matches()) {
                current = new ArrayList<>();
                functions.add(current);
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (current == null || !m.matches()) {
                continue;
            }
            current.add(m.group(1));
            String mnemonic = m.group(2);
            String operands = m.group(3) == null ? "" : m.group(3);
            boolean direct = (mnemonic.startsWith("j") || mnemonic.startsWith("b") || mnemonic.startsWith("call")
                    || mnemonic.startsWith("c.j") || mnemonic.startsWith("c.b") || mnemonic.equals("tail"))
                    && !operands.contains("*");
            Matcher t = TARGET.matcher(operands);
            if (direct && t.find()) {
                sites.add(new Site(m.group(1), t.group(1)));
            }
        }
        functions.removeIf(List::isEmpty);
        if (functions.isEmpty()) {
            throw new IllegalArgumentException("no instructions in the disassembly on standard input");
        }
        // Where each instruction is (function, index): traces fall through to a later instruction.
        Map<String, int[]> where = new HashMap<>();
        for (int f = 0; f < functions.size(); f++) {
            for (int k = 0; k < functions.get(f).size(); k++) {
                where.putIfAbsent(functions.get(f).get(k), new int[] {f, k});
            }
        }
        PrintWriter out = new PrintWriter(System.out, false, StandardCharsets.US_ASCII);
        for (int i = 0; i < lines; i++) {
            int kind = rng.nextInt(100);
            int count = 1 + rng.nextInt(2000);
            if (kind < 40 && !sites.isEmpty()) {
                Site s = sites.get(rng.nextInt(sites.size()));
                out.printf("B %s %s %d %d%n", s.from(), s.to(), count, rng.nextInt(4));
            } else if (kind < 55) {
                out.printf("B %s %s %d %d%n", any(functions, rng), any(functions, rng), count, rng.nextInt(4));
            } else if (kind < 80) {
                List<String> f = functions.get(rng.nextInt(functions.size()));
                int a = rng.nextInt(f.size());
                int b = Math.min(f.size() - 1, a + rng.nextInt(12));
                out.printf("%s %s %s %d%n", rng.nextInt(5) == 0 ? "f" : "F", f.get(a), f.get(b), count);
            } else if (kind < 85) {
                out.printf("F %s %s %d%n", any(functions, rng), any(functions, rng), count);
            } else if (kind < 92 && !sites.isEmpty()) {
                Site s = sites.get(rng.nextInt(sites.size()));
                int[] at = where.get(s.to());
                String end = at == null ? any(functions, rng) : functions.get(at[0]).get(
                        Math.min(functions.get(at[0]).size() - 1, at[1] + rng.nextInt(12)));
                out.printf("T %s %s %s %d%n", s.from(), s.to(), end, count);
            } else {
                out.printf("S %s %d%n", any(functions, rng), count);
            }
        }
        out.flush();
    }

    private static String any(List<List<String>> functions, SplittableRandom rng) {
        List<String> f = functions.get(rng.nextInt(functions.size()));
        return f.get(rng.nextInt(f.size()));
    }
}
