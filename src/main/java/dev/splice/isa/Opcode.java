package dev.splice.isa;

import java.util.List;
import java.util.Set;

/**
 * One row of the instruction table: mnemonic, extensions, fixed bits and operand template. A
 * decoded instruction is an opcode and its instruction word ({@code bits}); the word's operand
 * values are read by position ({@link #operand(int, int)}, in printed order), by role
 * ({@link #operand(int, Operand)}: rd, rs1, imm, ...) or by field ({@link #field(String)}), and
 * its control-flow class by {@link #controlFlow(int)}. None of these allocates.
 */
public final class Opcode {
    private final String mnemonic;
    /** The mnemonic as ASCII bytes, for {@link Printer}'s byte path. */
    final byte[] mnemonicBytes;
    private final Extension extension;
    private final Set<Extension> requires;
    private final Set<Extension> anyOf;
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
    /** Per {@link Operand} ordinal: the field holding it, or null (implied or absent). */
    private Field[] roleFields = new Field[Operand.ALL.length];
    /** Per {@link Operand} ordinal: the implied value where {@link #roleFields} has none. */
    private long[] roleValues = new long[Operand.ALL.length];
    /** Bit per {@link Operand} ordinal: the instruction has that operand. */
    private int roles;
    /** How {@link #controlFlow} is found: fixed, by rd (jal), by rd and rs1 (jalr). */
    private int flowRule = FLOW_FIXED;
    private ControlFlow flow = ControlFlow.NONE;
    static final int FLOW_FIXED = 0;
    static final int FLOW_JAL = 1;
    static final int FLOW_JALR = 2;

    Opcode(String mnemonic, Set<Extension> requires, Set<Extension> anyOf, Extension extension, int size, int mask,
           int match, Template operands, Field[] constraintFields, long[][] forbidden, String expansion) {
        this.mnemonic = mnemonic;
        this.mnemonicBytes = TextBuffer.ascii(mnemonic);
        this.extension = extension;
        this.requires = Set.copyOf(requires);
        this.anyOf = anyOf.isEmpty() ? Set.of() : java.util.Collections.unmodifiableSet(java.util.EnumSet.copyOf(anyOf)); // in enum order
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

    /** {@return the position of this row in {@link Isa#opcodes()}: a small number for packed decode results} */
    public int id() {
        return id;
    }

    void setId(int id) {
        this.id = id;
    }

    /** {@return the exact mnemonic ("addi", "c.addi", "lr.w.aq"), as the exact printer prints it} */
    public String mnemonic() {
        return mnemonic;
    }

    /** {@return the extension that defines this instruction (for c.fld: C)} */
    public Extension extension() {
        return extension;
    }

    /** {@return every extension that must be enabled for this instruction (c.fld: C and D)} */
    public Set<Extension> requires() {
        return requires;
    }

    /**
     * {@return the extensions of which any one also enables this instruction, besides {@link
     * #requires()} (rol: Zbb or Zbkb); empty for most rows}
     */
    public Set<Extension> anyOf() {
        return anyOf;
    }

    /**
     * Whether the instruction is one of these extensions': all of {@link #requires()} and, if
     * the row has alternatives, one of {@link #anyOf()}.
     *
     * @param enabled the enabled extensions
     * @return true if it decodes and assembles under {@code enabled}
     */
    public boolean enabledBy(Set<Extension> enabled) {
        if (!enabled.containsAll(requires)) {
            return false;
        }
        if (anyOf.isEmpty()) {
            return true;
        }
        for (Extension e : anyOf) {
            if (enabled.contains(e)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The extensions that this instruction needs under {@code enabled}: {@link #requires()} and
     * the first alternative that {@code enabled} has (for the .target of a listing).
     *
     * @param enabled the enabled extensions (the instruction is {@link #enabledBy} them)
     * @return the extensions it uses
     */
    public Set<Extension> usedIn(Set<Extension> enabled) {
        if (anyOf.isEmpty()) {
            return requires;
        }
        Set<Extension> used = java.util.EnumSet.noneOf(Extension.class);
        used.addAll(requires);
        for (Extension e : anyOf) {
            if (enabled.contains(e)) {
                used.add(e);
                return used;
            }
        }
        used.add(extension);
        return used;
    }

    /** {@return the size in bytes: 2 or 4} */
    public int size() {
        return size;
    }

    /** {@return the fixed bits of the encoding: {@code (bits & mask()) == match()} for this instruction} */
    public int mask() {
        return mask;
    }

    /** {@return the values of the fixed bits ({@link #mask()})} */
    public int match() {
        return match;
    }

    /** {@return the names of the operand fields in printed order} */
    public List<String> operandNames() {
        String[] n = new String[fields.length];
        for (int i = 0; i < n.length; i++) {
            n[i] = fields[i].name;
        }
        return List.of(n);
    }

    /** {@return the operand fields in printed order (their positions are those of {@link #operand(int, int)})} */
    public List<Field> fields() {
        return List.of(fields);
    }

    /** {@return the number of operand fields ({@link #fields()})} */
    public int operandCount() {
        return fields.length;
    }

    /**
     * The value of the operand at {@code index} in printed order: as fast as a field read.
     *
     * @param bits the instruction word (a 16-bit one in the low half)
     * @param index 0 to {@link #operandCount()} - 1
     * @return the value, as {@link Field#value} gives it
     */
    public long operand(int bits, int index) {
        return fields[index].value(bits);
    }

    /**
     * The operand field of this instruction with this table name ("rd", "imm12", "crs1q"), or null.
     *
     * @param name a field name of the table
     * @return the field, or null if this instruction has none of that name
     */
    public Field field(String name) {
        for (Field f : fields) {
            if (f.name.equals(name)) {
                return f;
            }
        }
        return null;
    }

    /**
     * Whether the instruction has an operand.
     *
     * @param role the operand's role
     * @return true if it has one, in a field or implied by its encoding
     */
    public boolean has(Operand role) {
        return (roles & 1 << role.ordinal()) != 0;
    }

    /**
     * The field that holds operand {@code role}, or null when the role is implied by the encoding
     * (c.jr's rd) or absent. Its {@link Field#type()} tells an integer from a floating-point
     * register; implied registers are integer registers.
     *
     * @param role an operand role
     * @return the field, or null
     */
    public Field field(Operand role) {
        return roleFields[role.ordinal()];
    }

    /**
     * The value of operand {@code role} in {@code bits}, as {@link Operand} describes it.
     *
     * @param bits the instruction word (a 16-bit one in the low half)
     * @param role an operand the instruction {@link #has}
     * @return the register number, immediate, offset, CSR number, rounding mode or fence set
     * @throws IllegalArgumentException if the instruction has no such operand
     */
    public long operand(int bits, Operand role) {
        Field f = roleFields[role.ordinal()];
        if (f != null) {
            long v = f.value(bits);
            return f.kind == OperandKind.CLUI ? v & 0xfffff : v;
        }
        if ((roles & 1 << role.ordinal()) == 0) {
            throw new IllegalArgumentException(mnemonic + " has no " + role + " operand");
        }
        return roleValues[role.ordinal()];
    }

    /**
     * {@code bits} with operand {@code role} set to {@code value} (in the form {@link #operand(int,
     * Operand)} reads it), the other bits unchanged.
     *
     * @param bits the instruction word
     * @param role an operand held in a field ({@link #field(Operand)} is not null)
     * @param value the new value
     * @return the new instruction word
     * @throws IllegalArgumentException if the operand is implied or absent, or the value does not fit
     */
    public int withOperand(int bits, Operand role, long value) {
        Field f = roleFields[role.ordinal()];
        if (f == null) {
            throw new IllegalArgumentException(mnemonic + " has no " + role + " field");
        }
        if (f.kind == OperandKind.CLUI && value >= 0x80000 && value <= 0xfffff) {
            value -= 0x100000;
        }
        return f.with(bits, value);
    }

    /**
     * The control-flow class of this instruction with these operands (jal and jalr by their
     * registers, see {@link ControlFlow}); one field read and a compare or two.
     *
     * @param bits the instruction word (a 16-bit one in the low half)
     * @return the class
     */
    public ControlFlow controlFlow(int bits) {
        int rule = flowRule;
        if (rule == FLOW_FIXED) {
            return flow;
        }
        long rd = operand(bits, Operand.RD);
        if (rule == FLOW_JAL) {
            return rd == 0 ? ControlFlow.JUMP : ControlFlow.CALL;
        }
        if (rd != 0) {
            return ControlFlow.INDIRECT_CALL;
        }
        return ControlFlow.isLinkRegister(operand(bits, Operand.RS1)) ? ControlFlow.RETURN : ControlFlow.INDIRECT_JUMP;
    }

    /** Sets the operand roles (by the table reader, once). */
    void setRoles(Field[] fields, long[] values, int present) {
        this.roleFields = fields;
        this.roleValues = values;
        this.roles = present;
    }

    /** Sets how the control-flow class is found (by the table reader, once). */
    void setFlow(int rule, ControlFlow fixed) {
        this.flowRule = rule;
        this.flow = fixed;
    }

    int flowRule() {
        return flowRule;
    }

    ControlFlow fixedFlow() {
        return flow;
    }

    /** {@return true for conditional branches, jal, c.j, c.beqz and c.bnez (pc-relative targets)} */
    public boolean hasBranchTarget() {
        return target != null;
    }

    /**
     * The sign-extended byte offset of the target, when {@link #hasBranchTarget()}.
     *
     * @param bits the instruction word
     * @return the offset from the instruction to its target
     */
    public long branchOffset(int bits) {
        if (target == null) {
            throw new IllegalStateException(mnemonic + " has no branch target");
        }
        return target.value(bits);
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

    /** {@return the mnemonic} */
    @Override
    public String toString() {
        return mnemonic;
    }
}
