package dev.splice.isa;

/**
 * One operand field of the table: where its value bits sit in the instruction word. The value is
 * assembled from scattered instruction bits (segments), so scaled immediates such as c.ldsp's
 * offset need no special code.
 */
final class Field {
    final String name;
    final OperandKind kind;
    /** Per segment: lowest instruction bit, number of bits, lowest value bit. */
    final int[] instLo;
    final int[] width;
    final int[] valueLo;
    /** Instruction bits covered by this field. */
    final int instMask;
    /** Value bits covered (the others must be zero: alignment). */
    final long valueMask;
    /** Number of value bits (highest covered value bit + 1). */
    final int valueBits;
    /**
     * {@link #value} without branching on the kind: the raw bits shifted up and back down by
     * {@code signShift} (sign extension; 0 for unsigned kinds), plus {@code bias} (8 for the
     * compressed register fields). A field of one segment (most of them) is one shift and mask.
     */
    private final int signShift;
    private final int bias;
    private final boolean oneSegment;
    private final int shift0;
    private final int mask0;
    private final int valueLo0;

    Field(String name, OperandKind kind, int[] instLo, int[] width, int[] valueLo) {
        this.name = name;
        this.kind = kind;
        this.instLo = instLo;
        this.width = width;
        this.valueLo = valueLo;
        int im = 0;
        long vm = 0;
        int top = 0;
        for (int i = 0; i < instLo.length; i++) {
            int segMask = (int) ((1L << width[i]) - 1);
            im |= segMask << instLo[i];
            vm |= ((long) segMask) << valueLo[i];
            top = Math.max(top, valueLo[i] + width[i]);
        }
        this.instMask = im;
        this.valueMask = vm;
        this.valueBits = top;
        this.signShift = kind.signed() ? 32 - top : 0;
        this.bias = kind == OperandKind.XREGQ || kind == OperandKind.FREGQ ? 8 : 0;
        this.oneSegment = instLo.length == 1;
        this.shift0 = instLo.length > 0 ? instLo[0] : 0;
        this.mask0 = instLo.length > 0 ? (int) ((1L << width[0]) - 1) : 0;
        this.valueLo0 = instLo.length > 0 ? valueLo[0] : 0;
    }

    /** The raw (unsigned, unbiased) value bits of this field in {@code bits}. */
    int raw(int bits) {
        if (oneSegment) {
            return ((bits >>> shift0) & mask0) << valueLo0;
        }
        int v = 0;
        for (int i = 0; i < instLo.length; i++) {
            v |= ((bits >>> instLo[i]) & ((1 << width[i]) - 1)) << valueLo[i];
        }
        return v;
    }

    /** The operand value: register number, sign-extended immediate or byte offset. */
    long value(int bits) {
        return ((raw(bits) << signShift) >> signShift) + bias;
    }

    /** Places an in-range value's bits into instruction position (no checks). */
    int insert(long value) {
        long v = (kind == OperandKind.XREGQ || kind == OperandKind.FREGQ) ? value - 8 : value;
        int out = 0;
        for (int i = 0; i < instLo.length; i++) {
            int seg = (int) ((v >>> valueLo[i]) & ((1L << width[i]) - 1));
            out |= seg << instLo[i];
        }
        return out;
    }

    long minValue() {
        return switch (kind) {
            case XREGQ, FREGQ -> 8;
            default -> kind.signed() ? -(1L << (valueBits - 1)) : 0;
        };
    }

    long maxValue() {
        return switch (kind) {
            case XREGQ, FREGQ -> 15;
            default -> kind.signed() ? (1L << (valueBits - 1)) - 1 : (1L << valueBits) - 1;
        };
    }

    /** The smallest step between valid values (2 for branch offsets, 8 for c.ldsp ...). */
    long alignment() {
        return Long.lowestOneBit(valueMask);
    }

    /** Null if {@code value} fits this field, else why not. */
    String check(long value) {
        long min = minValue();
        long max = maxValue();
        if (value < min || value > max) {
            return "out of range [" + min + ", " + max + "]";
        }
        long a = alignment();
        if (a > 1 && value % a != 0) {
            return "not a multiple of " + a;
        }
        return null;
    }

    @Override
    public String toString() {
        return name;
    }
}
