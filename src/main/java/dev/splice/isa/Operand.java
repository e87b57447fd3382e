package dev.splice.isa;

/**
 * The operands of an instruction by their role, as the RISC-V specification names them. The table
 * gives each role its field: in a 32-bit instruction by the base formats (rd in bits 11..7, rs1 in
 * 19..15, rs2 in 24..20, rs3 in 31..27; every immediate is {@link #IMM}); a compressed instruction
 * has the roles of the 32-bit instruction it expands to, each held by one of its own fields or
 * implied by the encoding (c.jr's rd is zero, c.addi16sp's rs1 is sp, c.jalr's rd is ra). So
 * {@code c.addi a0, 4} has rd = rs1 = 10 and imm = 4, as {@code addi a0, a0, 4} has.
 *
 * <p>Read them with {@link Opcode#operand(int, Operand)}; which roles an instruction has with
 * {@link Opcode#has(Operand)}.
 */
public enum Operand {
    /** The destination register (integer or floating-point: see {@link Opcode#field(Operand)}). */
    RD,
    /** The first source register (the base register of loads, stores and jalr). */
    RS1,
    /** The second source register (the data register of stores). */
    RS2,
    /** The third source register (fused multiply-add). */
    RS3,
    /**
     * The immediate, as the assembler writes it: a sign-extended I or S immediate, a load or store
     * offset in bytes, a shift amount, csrrwi's 5-bit value, the 20-bit upper immediate of lui and
     * auipc (0 to 0xfffff; for c.lui the same 20-bit form, so c.lui's -1 is 0xfffff).
     */
    IMM,
    /**
     * The signed byte offset from the instruction to its branch or jump target (conditional
     * branches, jal, c.j, c.beqz, c.bnez): the target is pc + offset.
     */
    BRANCH_OFFSET,
    /** The CSR number of a csrr* instruction (0 to 4095). */
    CSR,
    /** The rounding mode of a floating-point instruction (7 is dyn). */
    RM,
    /** The predecessor set of a fence (i, o, r, w as bits 3 to 0). */
    PRED,
    /** The successor set of a fence (i, o, r, w as bits 3 to 0). */
    SUCC,
    /** The destination vector register (bits 11..7). */
    VD,
    /** The first source vector register (bits 19..15). */
    VS1,
    /** The second source vector register (bits 24..20; the index vector of indexed loads and stores). */
    VS2,
    /** The data vector register of a vector store (bits 11..7). */
    VS3,
    /** The vm bit of a masked vector instruction: 0 when masked by v0, 1 when not. */
    VM,
    /** The vtype setting of vsetvli and vsetivli. */
    VTYPE;

    /** The roles, once: {@code values()} copies its array at every call. */
    static final Operand[] ALL = values();
}
