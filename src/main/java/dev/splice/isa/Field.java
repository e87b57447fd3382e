package dev.splice.isa;

/**
 * One operand field of the table ({@code field} lines, docs/isa.md): where its value bits sit in
 * the instruction word. The value is assembled from scattered instruction bits (segments), so
 * scaled immediates such as c.ldsp's offset need no special code. {@link #value} reads a field
 * from an instruction word and {@link #with} writes it back, for any word of an instruction that
 * has the field: {@code Isa.rv64().field("imm12").with(bits, 16)} sets the I immediate of an addi,
 * a load or a jalr. Nothing is allocated.
 */
public final class Field {
    /** What a field's value is. */
    public enum Type {
        /** An integer register number, 0 to 31 (8 to 15 for the 3-bit compressed fields). */
        INTEGER_REGISTER,
        /** A floating-point register number, 0 to 31 (8 to 15 for the 3-bit compressed fields). */
        FLOAT_REGISTER,
        /** An immediate, signed or not (see {@link Field#min()} and {@link Field#max()}). */
        IMMEDIATE,
        /** A signed byte offset from the instruction to a branch or jump target. */
        BRANCH_OFFSET,
        /** A CSR number, 0 to 4095. */
        CSR,
        /** A rounding mode, 0 to 7 (5 and 6 are reserved). */
        ROUNDING_MODE,
        /** A fence's predecessor or successor set (i, o, r, w as bits 3 to 0). */
        FENCE_SET,
        /** A vector register number, 0 to 31. */
        VECTOR_REGISTER,
        /** A vector instruction's vm bit: 0 when masked by v0 ({@code v0.t}), 1 when not. */
        VECTOR_MASK,
        /** The vtype setting of vsetvli and vsetivli (vsew, vlmul, vta, vma and the reserved bits). */
        VECTOR_TYPE
    }

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

    /** {@return the field's name in the table ("rd", "imm12", "cjoff", ...)} */
    public String name() {
        return name;
    }

    /** {@return what the value is: a register number, an immediate, a branch offset, ...} */
    public Type type() {
        return switch (kind) {
            case XREG, XREGQ -> Type.INTEGER_REGISTER;
            case FREG, FREGQ -> Type.FLOAT_REGISTER;
            case SIMM, UIMM, HEX20, CLUI -> Type.IMMEDIATE;
            case PCREL -> Type.BRANCH_OFFSET;
            case CSR -> Type.CSR;
            case RM, RMX -> Type.ROUNDING_MODE;
            case FENCE -> Type.FENCE_SET;
            case VREG -> Type.VECTOR_REGISTER;
            case VMASK -> Type.VECTOR_MASK;
            case VTYPE -> Type.VECTOR_TYPE;
            case FLI -> Type.IMMEDIATE;
        };
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

    /**
     * The operand value in {@code bits}: register number, sign-extended immediate or byte offset
     * (for c.lui's immediate the signed 6-bit value, which prints as the 20-bit value lui takes).
     *
     * @param bits an instruction word that has this field (a 16-bit one in the low half)
     * @return the value, between {@link #min()} and {@link #max()}
     */
    public long value(int bits) {
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

    /**
     * {@code bits} with this field set to {@code value} (the other bits unchanged).
     *
     * @param bits an instruction word that has this field
     * @param value the new value
     * @return the new instruction word
     * @throws IllegalArgumentException if the value does not fit ({@link #fits})
     */
    public int with(int bits, long value) {
        String problem = check(value);
        if (problem != null) {
            throw new IllegalArgumentException(name + ": " + value + " " + problem);
        }
        return (bits & ~instMask) | insert(value);
    }

    /**
     * Whether {@code value} fits: within {@link #min()} and {@link #max()} and a multiple of
     * {@link #alignment()}.
     *
     * @param value a candidate value
     * @return true if {@link #with} accepts it
     */
    public boolean fits(long value) {
        return check(value) == null;
    }

    /** {@return the smallest value the field holds (-2048 for imm12, 8 for a compressed register)} */
    public long min() {
        return minValue();
    }

    /** {@return the largest value the field holds (2047 for imm12, 0xfffff for uimm20)} */
    public long max() {
        return maxValue();
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

    /** {@return the smallest step between valid values (2 for branch offsets, 8 for c.ldsp, 1 for most)} */
    public long alignment() {
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

    /** {@return the field's name} */
    @Override
    public String toString() {
        return name;
    }
}
