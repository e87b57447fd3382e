package dev.splice.isa;

import java.util.List;
import java.util.Set;

/** One row of the instruction table: mnemonic, extensions, fixed bits and operand template. */
public final class Opcode {
    private final String mnemonic;
    /** The mnemonic as ASCII bytes, for {@link Printer}'s byte path. */
    final byte[] mnemonicBytes;
    private final Extension extension;
    private final Set<Extension> requires;
    private final int size;
    private final int mask;
    private final int match;
    final Template operands;
    /** Operand fields in template order. */
    final Field[] fields;
    /** Reserved values: constraintFields[i] must not take any of forbidden[i]. */
    final Field[] constraintFields;
    final long[][] forbidden;
    private final Field target;
    /** For compressed instructions: the operand text of the 32-bit instruction it expands to. */
    final String expansion;
    Opcode expandsTo;
    /** The row's position in {@link Isa#opcodes()}, set once by the Isa. */
    private int id = -1;
    /** Readable forms, tried in order by {@link Printer#ALIASES}. */
    Alias[] aliases = new Alias[0];

    Opcode(String mnemonic, Set<Extension> requires, Extension extension, int size, int mask, int match,
           Template operands, Field[] constraintFields, long[][] forbidden, String expansion) {
        this.mnemonic = mnemonic;
        this.mnemonicBytes = TextBuffer.ascii(mnemonic);
        this.extension = extension;
        this.requires = Set.copyOf(requires);
        this.size = size;
        this.mask = mask;
        this.match = match;
        this.operands = operands;
        this.fields = operands.fields();
        this.constraintFields = constraintFields;
        this.forbidden = forbidden;
        this.expansion = expansion;
        Field t = null;
        for (Field f : fields) {
            if (f.kind == OperandKind.PCREL) {
                t = f;
            }
        }
        this.target = t;
    }

    /** The position of this row in {@link Isa#opcodes()}: a small number for packed decode results. */
    public int id() {
        return id;
    }

    void setId(int id) {
        this.id = id;
    }

    public String mnemonic() {
        return mnemonic;
    }

    /** The extension that defines this instruction (for c.fld: C). */
    public Extension extension() {
        return extension;
    }

    /** Every extension that must be enabled for this instruction (c.fld: C and D). */
    public Set<Extension> requires() {
        return requires;
    }

    /** 2 or 4 bytes. */
    public int size() {
        return size;
    }

    public int mask() {
        return mask;
    }

    public int match() {
        return match;
    }

    /** The names of the operand fields in printed order. */
    public List<String> operandNames() {
        String[] n = new String[fields.length];
        for (int i = 0; i < n.length; i++) {
            n[i] = fields[i].name;
        }
        return List.of(n);
    }

    /** True for conditional branches, jal, c.j, c.jal, c.beqz and c.bnez (pc-relative targets). */
    public boolean hasBranchTarget() {
        return target != null;
    }

    /** The sign-extended byte offset of the target, when {@link #hasBranchTarget()}. */
    public long branchOffset(int bits) {
        if (target == null) {
            throw new IllegalStateException(mnemonic + " has no branch target");
        }
        return target.value(bits);
    }

    /** True if {@code bits} matches the fixed bits and no field takes a reserved value. */
    boolean accepts(int bits) {
        if ((bits & mask) != match) {
            return false;
        }
        return constraintsHold(bits);
    }

    boolean constraintsHold(int bits) {
        Field[] cf = constraintFields;
        for (int i = 0; i < cf.length; i++) {
            long v = cf[i].value(bits);
            for (long bad : forbidden[i]) {
                if (v == bad) {
                    return false;
                }
            }
        }
        return true;
    }

    @Override
    public String toString() {
        return mnemonic;
    }
}
