package dev.splice.listing;

/**
 * Evaluates an operand expression as GNU as does: numbers, names, {@code .}, parentheses, the
 * unary operators {@code - ~ ! +} and the binary operators in GNU's precedence (highest first):
 * {@code * / % << >>}, then {@code | & ^}, then {@code + -} (llvm-mc-22 uses the same precedence).
 * A value is a constant or a name plus a constant; the difference of two labels is a constant.
 */
final class Expression {
    /** Where a value comes from: it decides whether a use of it needs a fixup. */
    enum Origin {
        /** A constant (an absolute address or a number). */
        ABSOLUTE,
        /** A label of the text, a local label or {@code .}: moves with the region. */
        INTERNAL,
        /** A name from the caller's map. */
        EXTERNAL
    }

    /**
     * A value: its origin, for an external the name and the constant added to it, and the value.
     * For an internal value, {@code value} is the address.
     */
    record Value(Origin origin, String symbol, long addend, long value) {
        static Value constant(long v) {
            return new Value(Origin.ABSOLUTE, null, v, v);
        }

        boolean isConstant() {
            return origin == Origin.ABSOLUTE;
        }
    }

    /** Gives the value of a name, or throws {@link Failure} with {@code undefined} set. */
    @FunctionalInterface
    interface Names {
        Value lookup(String name, int at);
    }

    /** Why an expression does not evaluate, at which character of its text. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final int at;
        final boolean undefined;

        Failure(String message, int at, boolean undefined) {
            super(message, null, false, false);
            this.at = at;
            this.undefined = undefined;
        }
    }

    private final String text;
    private final Names names;
    private int pos;

    private Expression(String text, Names names) {
        this.text = text;
        this.names = names;
    }

    /**
     * The value of {@code text}.
     *
     * @throws Failure if it is malformed, names an unknown name or combines values GNU as would not
     */
    static Value evaluate(String text, Names names) {
        Expression e = new Expression(text, names);
        Value v = e.sum();
        e.skipSpace();
        if (e.pos < text.length()) {
            throw new Failure("unexpected '" + text.substring(e.pos) + "' in expression '" + text + "'", e.pos, false);
        }
        return v;
    }

    /** True when {@code text} has a character that only an expression has (an operator or parenthesis). */
    static boolean hasOperator(String text) {
        for (int i = 0; i < text.length(); i++) {
            if ("()+-*/%&|^~!<>".indexOf(text.charAt(i)) >= 0) {
                return true;
            }
        }
        return false;
    }

    private void skipSpace() {
        while (pos < text.length() && Character.isWhitespace(text.charAt(pos))) {
            pos++;
        }
    }

    private boolean accept(String op) {
        skipSpace();
        if (text.startsWith(op, pos)) {
            pos += op.length();
            return true;
        }
        return false;
    }

    private Value sum() {
        Value v = bitwise();
        while (true) {
            int at = pos;
            if (accept("+")) {
                v = add(v, bitwise(), at);
            } else if (accept("-")) {
                v = subtract(v, bitwise(), at);
            } else {
                return v;
            }
        }
    }

    private Value bitwise() {
        Value v = product();
        while (true) {
            skipSpace();
            int at = pos;
            char c = pos < text.length() ? text.charAt(pos) : 0;
            if (c != '|' && c != '&' && c != '^') {
                return v;
            }
            pos++;
            Value r = product();
            long a = constant(v, c, at);
            long b = constant(r, c, at);
            v = Value.constant(c == '|' ? a | b : c == '&' ? a & b : a ^ b);
        }
    }

    private Value product() {
        Value v = unary();
        while (true) {
            skipSpace();
            int at = pos;
            String op;
            if (accept("<<")) {
                op = "<<";
            } else if (accept(">>")) {
                op = ">>";
            } else if (accept("*")) {
                op = "*";
            } else if (accept("/")) {
                op = "/";
            } else if (accept("%")) {
                op = "%";
            } else {
                return v;
            }
            Value r = unary();
            long a = constant(v, op, at);
            long b = constant(r, op, at);
            long result = switch (op) {
                case "<<" -> a << b;
                case ">>" -> a >> b;
                case "*" -> a * b;
                default -> {
                    if (b == 0) {
                        throw new Failure("division by zero in '" + text + "'", at, false);
                    }
                    yield op.equals("/") ? a / b : a % b;
                }
            };
            v = Value.constant(result);
        }
    }

    private Value unary() {
        skipSpace();
        int at = pos;
        if (accept("-")) {
            return Value.constant(-constant(unary(), '-', at));
        }
        if (accept("~")) {
            return Value.constant(~constant(unary(), '~', at));
        }
        if (accept("!")) {
            return Value.constant(constant(unary(), '!', at) == 0 ? 1 : 0);
        }
        if (accept("+")) {
            return unary();
        }
        return primary();
    }

    private Value primary() {
        skipSpace();
        int at = pos;
        if (pos >= text.length()) {
            throw new Failure("expression '" + text + "' ends where a value should be", at, false);
        }
        char c = text.charAt(pos);
        if (c == '(') {
            pos++;
            Value v = sum();
            skipSpace();
            if (pos >= text.length() || text.charAt(pos) != ')') {
                throw new Failure("missing ')' in '" + text + "'", pos, false);
            }
            pos++;
            return v;
        }
        if (!isWordChar(c)) {
            throw new Failure("unexpected '" + c + "' in expression '" + text + "'", at, false);
        }
        while (pos < text.length() && isWordChar(text.charAt(pos))) {
            pos++;
        }
        String word = text.substring(at, pos);
        if (Character.isDigit(c) && !Numbers.isLocalReference(word)) {
            try {
                return Value.constant(Numbers.parse(word));
            } catch (NumberFormatException e) {
                throw new Failure(e.getMessage(), at, false);
            }
        }
        return names.lookup(word, at);
    }

    private static boolean isWordChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
    }

    private long constant(Value v, Object op, int at) {
        if (!v.isConstant()) {
            throw new Failure("'" + op + "' needs constants, but '" + text + "' uses "
                    + (v.origin() == Origin.EXTERNAL ? "the external name '" + v.symbol() + "'" : "a label"), at, false);
        }
        return v.value();
    }

    private Value add(Value a, Value b, int at) {
        if (a.isConstant() && b.isConstant()) {
            return Value.constant(a.value() + b.value());
        }
        if (b.isConstant()) {
            return new Value(a.origin(), a.symbol(), a.addend() + b.value(), a.value() + b.value());
        }
        if (a.isConstant()) {
            return new Value(b.origin(), b.symbol(), b.addend() + a.value(), b.value() + a.value());
        }
        throw new Failure("cannot add two addresses in '" + text + "'", at, false);
    }

    private Value subtract(Value a, Value b, int at) {
        if (b.isConstant()) {
            return new Value(a.origin(), a.symbol(), a.addend() - b.value(), a.value() - b.value());
        }
        boolean sameBase = a.origin() == b.origin()
                && (a.origin() == Origin.INTERNAL || a.symbol().equals(b.symbol()));
        if (sameBase) {
            return Value.constant(a.value() - b.value());
        }
        throw new Failure("'" + text + "' subtracts an address from "
                + (a.isConstant() ? "a constant" : "an address of another base"), at, false);
    }
}
