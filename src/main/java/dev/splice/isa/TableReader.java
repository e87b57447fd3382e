package dev.splice.isa;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Reads the declarative instruction table (see docs/isa.md for the format) and checks it: every
 * instruction bit is either fixed or in exactly one operand field.
 */
final class TableReader {
    private final String source;
    private final Map<String, Field> fields = new LinkedHashMap<>();
    private final List<Opcode> opcodes = new ArrayList<>();
    private final Map<String, Opcode> byName = new LinkedHashMap<>();
    private final Map<String, List<Alias>> aliases = new LinkedHashMap<>();
    private final Map<Integer, String> csrs = new TreeMap<>();
    private final Map<String, Integer> csrAliases = new HashMap<>();
    /** Per mnemonic: its {@code flow} class as the table writes it. */
    private final Map<String, String> flows = new LinkedHashMap<>();
    private int lineNo;

    private TableReader(String source) {
        this.source = source;
    }

    static Isa load(String resource) {
        try (InputStream in = TableReader.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("instruction table " + resource + " is missing");
            }
            TableReader r = new TableReader(resource);
            // The whole text at once, cut at line ends as BufferedReader.readLine cuts (\n, \r,
            // \r\n): cheaper for the interpreter than a reader's per-character decoding.
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (text.indexOf('\r') >= 0) {
                text = text.replace("\r\n", "\n").replace('\r', '\n');
            }
            int start = 0;
            while (start < text.length()) {
                int end = text.indexOf('\n', start);
                if (end < 0) {
                    end = text.length();
                }
                r.lineNo++;
                r.line(text.substring(start, end));
                start = end + 1;
            }
            return r.finish();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read instruction table " + resource, e);
        }
    }

    /**
     * {@code s.split("\\s+")} without a regular expression: the table is read at every start-up,
     * mostly by the interpreter, where compiling and running a pattern per line is costly.
     */
    static String[] words(String s) {
        List<String> out = new ArrayList<>();
        int i = 0;
        int n = s.length();
        if (n > 0 && isSpace(s.charAt(0))) {
            out.add("");
        }
        while (i < n) {
            while (i < n && isSpace(s.charAt(i))) {
                i++;
            }
            int start = i;
            while (i < n && !isSpace(s.charAt(i))) {
                i++;
            }
            if (i > start) {
                out.add(s.substring(start, i));
            }
        }
        if (out.isEmpty()) {
            out.add(s);
        }
        return out.toArray(new String[0]);
    }

    /** The characters of the regular expression class {@code \\s}. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }

    private IllegalStateException error(String message) {
        return new IllegalStateException(source + ":" + lineNo + ": " + message);
    }

    private void line(String raw) {
        String line = raw.strip();
        if (line.isEmpty() || line.startsWith("#")) {
            return;
        }
        // The line's first word without splitting all of it: insn and alias lines take the rest whole.
        int end = 0;
        while (end < line.length() && !isSpace(line.charAt(end))) {
            end++;
        }
        String kind = line.substring(0, end);
        switch (kind) {
            case "field" -> field(words(line));
            case "insn" -> insn(line.substring(4));
            case "alias" -> alias(line.substring(5));
            case "csr" -> csr(words(line));
            case "csr-alias" -> csrAlias(words(line));
            case "flow" -> flow(words(line));
            default -> throw error("unknown line kind '" + kind + "'");
        }
    }

    private void field(String[] w) {
        if (w.length < 4) {
            throw error("field needs NAME KIND SEGMENT...");
        }
        OperandKind kind = OperandKind.valueOf(w[2].toUpperCase(Locale.ROOT));
        int n = w.length - 3;
        int[] instLo = new int[n];
        int[] width = new int[n];
        int[] valueLo = new int[n];
        int nextValue = 0;
        boolean explicit = false;
        for (int i = 0; i < n; i++) {
            String seg = w[3 + i];
            String[] parts = seg.split(":");
            int[] inst = range(parts[0]);
            instLo[i] = inst[1];
            width[i] = inst[0] - inst[1] + 1;
            if (parts.length == 2) {
                int[] val = range(parts[1]);
                if (val[0] - val[1] != inst[0] - inst[1]) {
                    throw error("segment " + seg + " has different widths");
                }
                valueLo[i] = val[1];
                explicit = true;
            } else {
                if (explicit) {
                    throw error("segment " + seg + " needs its value bits");
                }
                valueLo[i] = nextValue;
                nextValue += width[i];
            }
        }
        if (fields.put(w[1], new Field(w[1], kind, instLo, width, valueLo)) != null) {
            throw error("duplicate field " + w[1]);
        }
    }

    /** "HI..LO" or "BIT" as {hi, lo}. */
    private int[] range(String s) {
        return range(s, 0, s.length());
    }

    /** {@link #range(String)} of {@code s[from, to)}, read in place. */
    private int[] range(String s, int from, int to) {
        try {
            int dots = s.indexOf("..", from);
            if (dots < 0 || dots >= to) {
                int b = Integer.parseInt(s, from, to, 10);
                return new int[] {b, b};
            }
            int hi = Integer.parseInt(s, from, dots, 10);
            int lo = Integer.parseInt(s, dots + 2, to, 10);
            if (hi < lo || lo < 0 || hi > 31) {
                throw error("bad bit range " + s.substring(from, to));
            }
            return new int[] {hi, lo};
        } catch (NumberFormatException e) {
            throw error("bad bit range " + s.substring(from, to));
        }
    }

    private static long number(String s) {
        return number(s, 0, s.length());
    }

    /** The number in {@code s[from, to)}, stripped of white space: read in place, no substrings. */
    private static long number(String s, int from, int to) {
        while (from < to && Character.isWhitespace(s.charAt(from))) {
            from++;
        }
        while (to > from && Character.isWhitespace(s.charAt(to - 1))) {
            to--;
        }
        boolean neg = from < to && s.charAt(from) == '-';
        if (neg) {
            from++;
        }
        long v = s.startsWith("0x", from) && from + 2 <= to ? Long.parseLong(s, from + 2, to, 16)
                : Long.parseLong(s, from, to, 10);
        return neg ? -v : v;
    }

    private void insn(String rest) {
        String[] cols = rest.split("\\|", -1);
        if (cols.length < 3) {
            throw error("insn needs MNEMONIC EXT | FIXED | OPERANDS");
        }
        String[] head = words(cols[0].strip());
        String mnemonic = head[0];
        Set<Extension> req = EnumSet.noneOf(Extension.class);
        Set<Extension> anyOf = EnumSet.noneOf(Extension.class);
        Extension ext = null;
        for (String e : head[1].split(",")) {
            int slash = e.indexOf('/');
            if (slash >= 0) { // "ZBB/ZBKB": either one enables the row
                if (!anyOf.isEmpty()) {
                    throw error(mnemonic + ": only one A/B group of alternative extensions");
                }
                for (String alternative : e.split("/")) {
                    anyOf.add(Extension.valueOf(alternative));
                }
            }
            Extension x = Extension.valueOf(slash >= 0 ? e.substring(0, slash) : e);
            if (slash < 0) {
                req.add(x);
            }
            if (ext == null) {
                ext = x;
            }
        }
        int mask = 0;
        int match = 0;
        for (String fixed : words(cols[1].strip())) {
            if (fixed.isEmpty()) {
                continue;
            }
            int eq = fixed.indexOf('=');
            int[] r = range(fixed, 0, eq);
            long v = number(fixed, eq + 1, fixed.length());
            int width = r[0] - r[1] + 1;
            long m = width == 32 ? 0xffffffffL : ((1L << width) - 1);
            if ((v & ~m) != 0) {
                throw error("value " + v + " does not fit bits " + fixed);
            }
            if ((mask & (int) (m << r[1])) != 0) {
                throw error("bits fixed twice in " + fixed);
            }
            mask |= (int) (m << r[1]);
            match |= (int) (v << r[1]);
        }
        int size = mnemonic.startsWith("c.") ? 2 : 4;
        if (size == 4 && (match & 3) != 3 && (mask & 3) != 3) {
            throw error(mnemonic + ": a 32-bit instruction must fix bits 1..0 to 3");
        }
        Template t = Template.compile(cols[2].strip(), fields);
        String conditions = cols.length > 3 ? cols[3].strip() : "";
        String expansion = cols.length > 4 ? cols[4].strip() : "";
        boolean aqrl = false;
        List<Field> cf = new ArrayList<>();
        List<long[]> forbidden = new ArrayList<>();
        for (String c : words(conditions)) {
            if (c.isEmpty()) {
                continue;
            }
            if (c.equals("aqrl")) {
                aqrl = true;
                continue;
            }
            int ne = c.indexOf("!=");
            if (ne < 0) {
                throw error("bad condition " + c);
            }
            Field f = fields.get(c.substring(0, ne));
            if (f == null) {
                throw error("unknown field in condition " + c);
            }
            String[] vs = c.substring(ne + 2).split(",");
            long[] bad = new long[vs.length];
            for (int i = 0; i < vs.length; i++) {
                bad[i] = number(vs[i]);
            }
            cf.add(f);
            forbidden.add(bad);
        }
        for (Field f : t.fields()) {
            if (f.kind == OperandKind.RM || f.kind == OperandKind.RMX) {
                cf.add(f);
                forbidden.add(new long[] {5, 6});
            }
        }
        int full = size == 2 ? 0xffff : 0xffffffff;
        String[] suffixes = aqrl ? new String[] {"", ".aq", ".rl", ".aqrl"} : new String[] {""};
        for (int k = 0; k < suffixes.length; k++) {
            int m = mask;
            int v = match;
            if (aqrl) {
                m |= 3 << 25;
                v |= (k == 1 ? 2 : k == 2 ? 1 : k == 3 ? 3 : 0) << 25;
            }
            int covered = m;
            for (Field f : t.fields()) {
                if ((covered & f.instMask) != 0) {
                    throw error(mnemonic + ": field " + f.name + " overlaps fixed bits or another field");
                }
                covered |= f.instMask;
            }
            if (covered != full) {
                throw error(mnemonic + suffixes[k] + ": bits 0x" + Integer.toHexString(~covered & full)
                        + " are neither fixed nor in a field");
            }
            Opcode op = new Opcode(mnemonic.concat(suffixes[k]), req, anyOf, ext, size, m, v, t,
                    cf.toArray(new Field[0]), forbidden.toArray(new long[0][]), expansion);
            opcodes.add(op);
            if (byName.put(op.mnemonic(), op) != null) {
                throw error("duplicate mnemonic " + op.mnemonic());
            }
        }
    }

    private void alias(String rest) {
        String[] cols = rest.split("\\|", -1);
        if (cols.length != 3) {
            throw error("alias needs MNEMONIC | CONDITIONS | TEXT");
        }
        String base = cols[0].strip();
        Opcode op = byName.get(base);
        if (op == null) {
            throw error("alias of unknown instruction " + base);
        }
        Map<String, Field> own = new LinkedHashMap<>();
        for (Field f : op.fields) {
            own.put(f.name, f);
        }
        List<Field> cf = new ArrayList<>();
        List<Long> cv = new ArrayList<>();
        List<Field> co = new ArrayList<>();
        for (String c : words(cols[1].strip())) {
            if (c.isEmpty()) {
                continue;
            }
            int eq = c.indexOf('=');
            Field f = own.get(c.substring(0, eq));
            if (f == null) {
                throw error("alias condition on a field " + base + " does not have: " + c);
            }
            String rhs = c.substring(eq + 1);
            Field other = own.get(rhs);
            cf.add(f);
            co.add(other);
            cv.add(other != null ? 0L : number(rhs));
        }
        String text = cols[2].strip();
        int sp = text.indexOf(' ');
        String mnemonic = sp < 0 ? text : text.substring(0, sp);
        Template t = Template.compile(sp < 0 ? "" : text.substring(sp + 1).strip(), own);
        long[] values = new long[cv.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = cv.get(i);
        }
        List<Alias> list = aliases.get(base);
        if (list == null) {
            list = new ArrayList<>();
            aliases.put(base, list);
        }
        list.add(new Alias(mnemonic, t, cf.toArray(new Field[0]), values, co.toArray(new Field[0])));
    }

    private void csr(String[] w) {
        int number = (int) number(w[1]);
        if (w.length == 3) {
            putCsr(number, w[2]);
        } else if (w.length == 4) {
            // No regex split and no string concatenation (an invokedynamic bootstrap): both cost
            // milliseconds at start-up.
            int dots = w[3].indexOf("..");
            if (dots < 0) {
                throw error("csr range needs FIRST..LAST");
            }
            int first = Integer.parseInt(w[3].substring(0, dots));
            int last = Integer.parseInt(w[3].substring(dots + 2));
            for (int i = first; i <= last; i++) {
                putCsr(number + i - first, w[2].concat(Integer.toString(i)));
            }
        } else {
            throw error("csr needs NUMBER NAME [FIRST..LAST]");
        }
    }

    /** {@code flow CLASS MNEMONIC...}: the control-flow class of 32-bit (or unexpanded) instructions. */
    private void flow(String[] w) {
        if (w.length < 3) {
            throw error("flow needs CLASS MNEMONIC...");
        }
        if (!FLOW_CLASSES.contains(w[1])) {
            throw error("unknown flow class '" + w[1] + "' (one of " + FLOW_CLASSES + ")");
        }
        for (int i = 2; i < w.length; i++) {
            Opcode op = byName.get(w[i]);
            if (op == null) {
                throw error("flow of unknown instruction " + w[i]);
            }
            if (op.expandsTo != null || !op.expansion.isEmpty()) {
                throw error(w[i] + " has the flow of the instruction it expands to");
            }
            if (flows.put(w[i], w[1]) != null) {
                throw error("flow of " + w[i] + " given twice");
            }
        }
    }

    private static final List<String> FLOW_CLASSES =
            List.of("branch", "jump-and-link", "jump-and-link-register", "trap", "trap-return");

    /** {@code csr-alias NUMBER NAME...}: other names the assembler takes for a named CSR. */
    private void csrAlias(String[] w) {
        if (w.length < 3) {
            throw error("csr-alias needs NUMBER NAME...");
        }
        int number = (int) number(w[1]);
        if (!csrs.containsKey(number)) {
            throw error("csr-alias of unnamed CSR " + w[1]);
        }
        for (int i = 2; i < w.length; i++) {
            if (csrs.containsValue(w[i]) || csrAliases.put(w[i], number) != null) {
                throw error("duplicate CSR name " + w[i]);
            }
        }
    }

    private void putCsr(int number, String name) {
        if (number < 0 || number > 0xfff || csrs.put(number, name) != null) {
            throw error("bad or duplicate CSR " + name);
        }
    }

    private Isa finish() {
        for (Opcode op : opcodes) {
            List<Alias> list = aliases.get(op.mnemonic());
            if (list != null) {
                op.aliases = list.toArray(new Alias[0]);
            }
            if (op.size() == 2 && !op.expansion.isEmpty()) {
                String target = words(op.expansion)[0];
                op.expandsTo = byName.get(target);
                if (op.expandsTo == null || op.expandsTo.size() != 4) {
                    throw new IllegalStateException(source + ": " + op.mnemonic()
                            + " expands to unknown instruction " + target);
                }
            }
        }
        for (Opcode op : opcodes) {
            if (op.size() == 4) {
                roles(op);
            }
        }
        for (Opcode op : opcodes) {
            if (op.size() == 2) {
                compressedRoles(op);
            }
            flowOf(op);
        }
        return new Isa(opcodes, csrs, csrAliases, fields);
    }

    /** A 32-bit instruction's operand roles, by the base formats' field positions. */
    private void roles(Opcode op) {
        Field[] byRole = new Field[Operand.ALL.length];
        int present = 0;
        for (Field f : op.fields) {
            Operand role = role(f);
            if (role == null) {
                throw new IllegalStateException(source + ": " + op.mnemonic() + ": field " + f.name
                        + " has no operand role (not where the base formats put rd, rs1, rs2, rs3)");
            }
            if (byRole[role.ordinal()] != null) {
                throw new IllegalStateException(source + ": " + op.mnemonic() + " has two " + role + " fields");
            }
            byRole[role.ordinal()] = f;
            present |= 1 << role.ordinal();
        }
        op.setRoles(byRole, new long[byRole.length], present);
    }

    private static Operand role(Field f) {
        return switch (f.kind) {
            case XREG, FREG -> switch (f.instMask) {
                case 0x00000f80 -> Operand.RD;
                case 0x000f8000 -> Operand.RS1;
                case 0x01f00000 -> Operand.RS2;
                case 0xf8000000 -> Operand.RS3;
                default -> null;
            };
            case SIMM, UIMM, HEX20, FLI -> Operand.IMM;
            case PCREL -> Operand.BRANCH_OFFSET;
            case CSR -> Operand.CSR;
            case RM, RMX -> Operand.RM;
            case FENCE -> f.instMask == 0x0f000000 ? Operand.PRED : f.instMask == 0x00f00000 ? Operand.SUCC : null;
            // Vector registers have roles of their own: consumers that read RD/RS1/RS2 as x or f
            // registers (pairing, liveness) never see a vector register number.
            case VREG -> switch (f.instMask) {
                case 0x00000f80 -> f.name.equals("vs3") ? Operand.VS3 : Operand.VD;
                case 0x000f8000 -> Operand.VS1;
                case 0x01f00000 -> Operand.VS2;
                default -> null;
            };
            case VMASK -> Operand.VM;
            case VTYPE -> Operand.VTYPE;
            default -> null;
        };
    }

    /**
     * A compressed instruction's roles: those of the 32-bit instruction it expands to, each from
     * the word at the same place in the expansion (one of its fields, a register name, a number).
     */
    private void compressedRoles(Opcode op) {
        if (op.expandsTo == null) {
            if (op.fields.length > 0) {
                throw new IllegalStateException(source + ": " + op.mnemonic() + " has operands but no expansion");
            }
            return;
        }
        String exp = op.expansion;
        int sp = exp.indexOf(' ');
        String text = sp < 0 ? "" : exp.substring(sp + 1).strip();
        Opcode wide = op.expandsTo;
        String templateText = wide.operands.text();
        List<String> mine = new ArrayList<>();
        List<String> theirs = new ArrayList<>();
        if (!skeleton(text, mine).equals(skeleton(templateText, theirs)) || mine.size() != theirs.size()) {
            throw new IllegalStateException(source + ": " + op.mnemonic() + "'s expansion '" + exp
                    + "' does not have the operands of " + wide.mnemonic() + " (" + templateText + ")");
        }
        Field[] byRole = new Field[Operand.ALL.length];
        long[] values = new long[byRole.length];
        int present = 0;
        Set<Field> used = new java.util.HashSet<>();
        for (int i = 0; i < theirs.size(); i++) {
            Field target = wide.field(theirs.get(i));
            String word = mine.get(i);
            if (target == null) {
                if (!word.equals(theirs.get(i))) {
                    throw new IllegalStateException(source + ": " + op.mnemonic() + "'s expansion has '" + word
                            + "' where " + wide.mnemonic() + " has '" + theirs.get(i) + "'");
                }
                continue;
            }
            Operand role = null;
            for (Operand r : Operand.ALL) {
                if (wide.field(r) == target) {
                    role = r;
                }
            }
            Field own = op.field(word);
            if (own != null) {
                byRole[role.ordinal()] = own;
                used.add(own);
            } else {
                values[role.ordinal()] = implied(op, target, word);
            }
            present |= 1 << role.ordinal();
        }
        if (used.size() != op.fields.length) {
            throw new IllegalStateException(source + ": " + op.mnemonic() + "'s expansion leaves out an operand");
        }
        op.setRoles(byRole, values, present);
    }

    /** The text with each word (field name, register, number) as "w", without spaces; the words into {@code out}. */
    private static String skeleton(String text, List<String> out) {
        StringBuilder sb = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            char c = text.charAt(i);
            boolean negative = c == '-' && i + 1 < text.length() && Character.isDigit(text.charAt(i + 1)); // c.not: -1
            if (Template.isWordChar(c) || negative) {
                int j = negative ? i + 1 : i;
                while (j < text.length() && Template.isWordChar(text.charAt(j))) {
                    j++;
                }
                out.add(text.substring(i, j));
                sb.append('w');
                i = j;
            } else {
                if (c != ' ') {
                    sb.append(c);
                }
                i++;
            }
        }
        return sb.toString();
    }

    private long implied(Opcode op, Field target, String word) {
        long v = switch (target.kind) {
            case XREG -> Names.xreg(word);
            case FREG -> Names.freg(word);
            default -> {
                try {
                    yield number(word);
                } catch (NumberFormatException e) {
                    yield Long.MIN_VALUE;
                }
            }
        };
        if (v == Long.MIN_VALUE || v < 0 && target.kind.register() || target.check(v) != null) {
            throw new IllegalStateException(source + ": " + op.mnemonic() + "'s expansion: '" + word
                    + "' is no value of " + target.name);
        }
        return v;
    }

    /** The control-flow rule of an instruction, from its flow line or its expansion's. */
    private void flowOf(Opcode op) {
        String cls = flows.get(op.expandsTo != null ? op.expandsTo.mnemonic() : op.mnemonic());
        String problem = null;
        if (cls == null) {
            op.setFlow(Opcode.FLOW_FIXED, ControlFlow.NONE);
            if (op.hasBranchTarget()) {
                problem = "has a branch target but no flow";
            }
        } else {
            switch (cls) {
                case "branch" -> op.setFlow(Opcode.FLOW_FIXED, ControlFlow.BRANCH);
                case "jump-and-link" -> op.setFlow(Opcode.FLOW_JAL, null);
                case "jump-and-link-register" -> op.setFlow(Opcode.FLOW_JALR, null);
                case "trap" -> op.setFlow(Opcode.FLOW_FIXED, ControlFlow.TRAP);
                default -> op.setFlow(Opcode.FLOW_FIXED, ControlFlow.TRAP_RETURN);
            }
            boolean direct = cls.equals("branch") || cls.equals("jump-and-link");
            if (direct != op.hasBranchTarget() || direct && !op.has(Operand.BRANCH_OFFSET)) {
                problem = "is a " + cls + (direct ? " without" : " with") + " a branch target";
            } else if (cls.startsWith("jump-and-link") && !op.has(Operand.RD)
                    || cls.equals("jump-and-link-register") && !op.has(Operand.RS1)) {
                problem = "is a " + cls + " without rd and rs1";
            }
        }
        if (problem != null) {
            throw new IllegalStateException(source + ": " + op.mnemonic() + " " + problem);
        }
    }
}
