package dev.splice.isa;

/** Parses operand text against an opcode's operand template into field values. */
final class OperandParser {
    private final Opcode op;
    private final String text;
    private final long pc;
    private final SymbolResolver symbols;
    private final int[] columns;
    private int pos;

    OperandParser(Opcode op, String text, long pc, SymbolResolver symbols) {
        this.op = op;
        this.text = text == null ? "" : text;
        this.pc = pc;
        this.symbols = symbols == null ? SymbolResolver.NONE : symbols;
        this.columns = new int[op.fields.length];
    }

    int[] columns() {
        return columns;
    }

    long[] parse() throws OperandException {
        long[] values = new long[op.fields.length];
        int k = 0;
        for (Template.Token tok : op.operands.tokens()) {
            if (!tok.isField()) {
                literal(tok.literal());
                continue;
            }
            Field f = tok.field();
            if (tok.optional()) {
                skipSpace();
                if (pos >= text.length()) {
                    columns[k] = pos;
                    values[k++] = Encoder.defaultValue(f);
                    continue;
                }
                literal(tok.separator());
            }
            skipSpace();
            columns[k] = pos;
            values[k++] = field(f);
        }
        skipSpace();
        if (pos < text.length()) {
            throw error("unexpected '" + text.substring(pos) + "' after the operands", pos);
        }
        return values;
    }

    private OperandException error(String message, int column) {
        return new OperandException(op.mnemonic() + ": " + message, column);
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private static boolean wordChar(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '.' || c == '$';
    }

    private String word() {
        int start = pos;
        while (pos < text.length() && wordChar(text.charAt(pos))) {
            pos++;
        }
        return text.substring(start, pos);
    }

    /** Matches literal template text; whitespace is free, register names match any spelling. */
    private void literal(String lit) throws OperandException {
        int i = 0;
        while (i < lit.length()) {
            char c = lit.charAt(i);
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            skipSpace();
            if (Character.isLetterOrDigit(c)) {
                int j = i;
                while (j < lit.length() && Character.isLetterOrDigit(lit.charAt(j))) {
                    j++;
                }
                String want = lit.substring(i, j);
                int at = pos;
                String got = word();
                int wantReg = Names.xreg(want);
                boolean ok = wantReg >= 0 ? Names.xreg(got) == wantReg : got.equalsIgnoreCase(want);
                if (!ok) {
                    throw error("expected '" + want + "'" + (got.isEmpty() ? "" : ", got '" + got + "'"), at);
                }
                i = j;
                continue;
            }
            if (c == '(' && pos < text.length() && text.charAt(pos) == '0') {
                skipZeroOffset(); // "lr.w a0, 0(a0)": a zero offset where the template has none, as GNU as and llvm-mc
            }
            if (pos >= text.length() || text.charAt(pos) != c) {
                throw error("expected '" + c + "'" + (pos >= text.length() ? " but the operands end"
                        : ", got '" + text.charAt(pos) + "'"), pos);
            }
            pos++;
            i++;
        }
    }

    /** Skips "0" (or "0x0", "00") followed by "(": the only offset an operand without one may have. */
    private void skipZeroOffset() {
        int p = pos;
        if (text.startsWith("0x", p) || text.startsWith("0X", p)) {
            p += 2;
        }
        int digits = p;
        while (p < text.length() && text.charAt(p) == '0') {
            p++;
        }
        if (p == digits) {
            return;
        }
        int afterZeros = p;
        while (p < text.length() && Character.isWhitespace(text.charAt(p))) {
            p++;
        }
        if (p < text.length() && text.charAt(p) == '(' && afterZeros > pos) {
            pos = p;
        }
    }

    private long field(Field f) throws OperandException {
        int at = pos;
        switch (f.kind) {
            case XREG, XREGQ -> {
                String w = word();
                int r = Names.xreg(w);
                if (r < 0) {
                    throw error(w.isEmpty() ? "expected an integer register" : "'" + w + "' is not an integer register", at);
                }
                if (f.kind == OperandKind.XREGQ && (r < 8 || r > 15)) {
                    throw error("register '" + w + "' is not one of s0, s1, a0-a5 (x8-x15)", at);
                }
                return r;
            }
            case FREG, FREGQ -> {
                String w = word();
                int r = Names.freg(w);
                if (r < 0) {
                    throw error(w.isEmpty() ? "expected a floating-point register"
                            : "'" + w + "' is not a floating-point register", at);
                }
                if (f.kind == OperandKind.FREGQ && (r < 8 || r > 15)) {
                    throw error("register '" + w + "' is not one of fs0, fs1, fa0-fa5 (f8-f15)", at);
                }
                return r;
            }
            case RM, RMX -> {
                String w = word();
                int rm = Names.roundingMode(w);
                if (rm < 0) {
                    throw error("'" + w + "' is not a rounding mode (rne, rtz, rdn, rup, rmm, dyn)", at);
                }
                return rm;
            }
            case FENCE -> {
                String w = word();
                int set = Names.fence(w);
                if (set < 0) {
                    throw error("'" + w + "' is not a fence set (letters of iorw in that order, or 0)", at);
                }
                return set;
            }
            case FLI -> {
                int start = pos;
                while (pos < text.length() && text.charAt(pos) != ',' && !Character.isWhitespace(text.charAt(pos))) {
                    pos++;
                }
                String w = text.substring(start, pos);
                for (int i = 0; i < Names.FLI.length; i++) {
                    if (Names.FLI[i].equalsIgnoreCase(w)) {
                        return i;
                    }
                }
                throw error("'" + w + "' is not an fli constant (min, inf, nan, or one of the 29 values of Zfa's table: -1.0, 0.5, 1.0, 2.0, ...)", at);
            }
            case CSR -> {
                if (pos < text.length() && Character.isLetter(text.charAt(pos))) {
                    String w = word();
                    int n = Isa.rv64().csrNumber(w.toLowerCase(java.util.Locale.ROOT));
                    if (n < 0) {
                        throw error("unknown CSR '" + w + "'", at);
                    }
                    return n;
                }
                return checked(f, number(), at);
            }
            case PCREL -> {
                return pcrel(f, at);
            }
            case VREG -> {
                String w = word();
                int r = Names.vreg(w);
                if (r < 0) {
                    throw error(w.isEmpty() ? "expected a vector register" : "'" + w + "' is not a vector register", at);
                }
                return r;
            }
            case VMASK -> {
                String w = word();
                if (!w.equalsIgnoreCase("v0.t")) {
                    throw error("expected the mask operand v0.t" + (w.isEmpty() ? "" : ", got '" + w + "'"), at);
                }
                return 0;
            }
            case VTYPE -> {
                return vtype(f, at);
            }
            case CLUI -> {
                long v = number();
                if (v >= 0xfffe0 && v <= 0xfffff) {
                    return v - 0x100000;
                }
                if (v < 1 || v > 31) {
                    throw error("immediate " + v + " out of range: c.lui takes 1..0x1f or 0xfffe0..0xfffff", at);
                }
                return v;
            }
            default -> {
                // A memory offset may be left out: "(a0)" means "0(a0)".
                if (pos < text.length() && text.charAt(pos) == '(') {
                    return 0;
                }
                return checked(f, number(), at);
            }
        }
    }

    /**
     * A vtype: a number, or "eSEW[, mLMUL][, ta|tu][, ma|mu]" as llvm-mc reads it (m1, tu and mu
     * when left out).
     */
    private long vtype(Field f, int at) throws OperandException {
        if (pos < text.length() && !Character.isLetter(text.charAt(pos))) {
            return checked(f, number(), at);
        }
        String w = word();
        int sew = VectorType.sew(w);
        if (sew < 0) {
            throw error("'" + w + "' is not an element width (e8, e16, e32, e64)", at);
        }
        int lmul = 0;
        int tail = 0;
        int mask = 0;
        int stage = 0; // 0: lmul may follow, 1: tail policy, 2: mask policy, 3: done
        while (true) {
            skipSpace();
            if (pos >= text.length() || text.charAt(pos) != ',' || stage == 3) {
                break;
            }
            pos++;
            skipSpace();
            int wordAt = pos;
            String part = word();
            String p = part.toLowerCase(java.util.Locale.ROOT);
            if (stage == 0 && VectorType.lmul(p) >= 0) {
                lmul = VectorType.lmul(p);
                stage = 1;
            } else if (stage <= 1 && (p.equals("ta") || p.equals("tu"))) {
                tail = p.equals("ta") ? 1 : 0;
                stage = 2;
            } else if (stage <= 2 && (p.equals("ma") || p.equals("mu"))) {
                mask = p.equals("ma") ? 1 : 0;
                stage = 3;
            } else {
                throw error("'" + part + "' is not a register group multiplier (m1, m2, m4, m8, mf2, mf4, mf8), "
                        + "tail policy (ta, tu) or mask policy (ma, mu) in its place", wordAt);
            }
        }
        return mask << 7 | tail << 6 | sew << 3 | lmul;
    }

    private long checked(Field f, long v, int at) throws OperandException {
        String problem = f.check(v);
        if (problem != null) {
            throw error(Encoder.describe(f) + " " + v + " " + problem, at);
        }
        return v;
    }

    private long pcrel(Field f, int at) throws OperandException {
        long offset;
        char c = pos < text.length() ? text.charAt(pos) : 0;
        if (c == '.' && (pos + 1 >= text.length() || !wordChar(text.charAt(pos + 1)))) {
            pos++;
            skipSpace();
            offset = 0;
            if (pos < text.length() && (text.charAt(pos) == '+' || text.charAt(pos) == '-')) {
                offset = number();
            }
        } else if (Character.isDigit(c) || c == '-' || c == '+') {
            offset = number() - pc;
        } else {
            String name = word();
            if (name.isEmpty()) {
                throw error("expected a branch target (address, .+offset or symbol)", at);
            }
            long target;
            try {
                target = symbols.resolve(name);
            } catch (OperandException e) {
                throw new OperandException(e.getMessage(), e.column() >= 0 ? e.column() : at);
            }
            offset = target - pc;
        }
        String problem = f.check(offset);
        if (problem != null) {
            throw error("branch offset " + offset + " " + problem, at);
        }
        return offset;
    }

    /** A decimal, 0x hex or 0b binary integer (hex and binary up to 64 bits) with an optional sign. */
    private long number() throws OperandException {
        skipSpace();
        int at = pos;
        boolean neg = false;
        if (pos < text.length() && (text.charAt(pos) == '-' || text.charAt(pos) == '+')) {
            neg = text.charAt(pos) == '-';
            pos++;
            skipSpace();
        }
        int radix = 10;
        if (pos + 1 < text.length() && text.charAt(pos) == '0'
                && (text.charAt(pos + 1) == 'x' || text.charAt(pos + 1) == 'X')) {
            radix = 16;
            pos += 2;
        } else if (pos + 1 < text.length() && text.charAt(pos) == '0'
                && (text.charAt(pos + 1) == 'b' || text.charAt(pos + 1) == 'B')) {
            radix = 2;
            pos += 2;
        }
        int start = pos;
        while (pos < text.length() && Character.digit(text.charAt(pos), radix) >= 0) {
            pos++;
        }
        if (start == pos || (pos < text.length() && wordChar(text.charAt(pos)))) {
            while (pos < text.length() && wordChar(text.charAt(pos))) {
                pos++;
            }
            throw error("'" + text.substring(at, pos) + "' is not a number", at);
        }
        try {
            // Hex and binary spell 64-bit patterns (addresses such as 0xffffffffffff0000).
            String digits = text.substring(start, pos);
            long v = radix == 10 ? Long.parseLong(digits) : Long.parseUnsignedLong(digits, radix);
            return neg ? -v : v;
        } catch (NumberFormatException e) {
            throw error("number '" + text.substring(at, pos) + "' is too large", at);
        }
    }
}
