package dev.splice;

/** What an instruction does to the flow of control. */
public enum ControlFlow {
    /** Falls through to the next instruction. */
    NONE,
    /** A conditional branch ({@code beq}, {@code c.bnez}, ...): to its target or on. */
    BRANCH,
    /** A direct jump that does not link ({@code jal zero}, {@code c.j}). */
    JUMP,
    /** A call: a jump that links a return address, direct ({@code jal ra}) or indirect ({@code jalr ra}). */
    CALL,
    /** A return: {@code jalr zero, 0(ra)}, {@code c.jr ra}. */
    RETURN,
    /** An indirect jump that neither links nor returns ({@code jalr zero, 0(a5)}, {@code c.jr a5}). */
    INDIRECT,
    /** Enters the execution environment: {@code ecall}, {@code ebreak}, {@code c.ebreak}. */
    TRAP
}
