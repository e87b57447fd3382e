package dev.splice.isa;

/**
 * How an instruction may leave the sequential path, from the table's {@code flow} lines (see
 * docs/isa.md); a compressed instruction has the class of the instruction it expands to. Read it
 * with {@link Opcode#controlFlow(int)}.
 *
 * <p>jal and jalr (and c.j, c.jr, c.jalr) are classified by their registers, following the
 * return-address-stack hints of the RISC-V unprivileged specification (jalr, "Table 3") and the
 * psABI, whose link registers are {@code ra} (x1) and the alternate link register {@code t0} (x5):
 *
 * <table>
 * <caption>jal and jalr</caption>
 * <tr><th>instruction</th><th>rd</th><th>rs1</th><th>class</th><th>RAS hint</th></tr>
 * <tr><td>jal</td><td>zero</td><td>-</td><td>{@link #JUMP}</td><td>none</td></tr>
 * <tr><td>jal</td><td>ra, t0</td><td>-</td><td>{@link #CALL}</td><td>push</td></tr>
 * <tr><td>jal</td><td>other</td><td>-</td><td>{@link #CALL}</td><td>none (a call with an unusual link register)</td></tr>
 * <tr><td>jalr</td><td>zero</td><td>ra, t0</td><td>{@link #RETURN}</td><td>pop</td></tr>
 * <tr><td>jalr</td><td>zero</td><td>other</td><td>{@link #INDIRECT_JUMP}</td><td>none</td></tr>
 * <tr><td>jalr</td><td>ra, t0</td><td>other, or rs1 = rd</td><td>{@link #INDIRECT_CALL}</td><td>push</td></tr>
 * <tr><td>jalr</td><td>ra, t0</td><td>the other link register</td><td>{@link #INDIRECT_CALL}</td><td>pop, then push (coroutine swap)</td></tr>
 * <tr><td>jalr</td><td>other</td><td>any</td><td>{@link #INDIRECT_CALL}</td><td>none</td></tr>
 * </table>
 *
 * <p>Any jal or jalr that writes a register other than zero links, so it is a call, as
 * llvm-objdump and LLVM BOLT take it. A tail call ({@code jr t1}, {@code j func}) is a jump: only
 * a CFG that knows the function's bounds can tell it from a jump inside the function.
 */
public enum ControlFlow {
    /** Falls through to the next instruction. */
    NONE,
    /** A conditional branch: to pc + offset when taken, else to the next instruction. */
    BRANCH,
    /** A direct unconditional jump that links no register (jal zero, c.j). */
    JUMP,
    /** A direct jump that links a return address in rd (jal ra, jal t0, ...). */
    CALL,
    /** An indirect jump through a link register that links none: a function return (ret, jr t0). */
    RETURN,
    /** An indirect jump that links no register, through another register: jump tables, tail calls. */
    INDIRECT_JUMP,
    /** An indirect jump that links a return address in rd (jalr ra, c.jalr). */
    INDIRECT_CALL,
    /**
     * Raises an exception on purpose and enters the trap handler: ecall, ebreak, c.ebreak, c.unimp.
     * Whether execution resumes after it is up to the handler (after ecall it usually does).
     */
    TRAP,
    /** Returns from a trap handler to the saved pc (sret, mret, dret). */
    TRAP_RETURN;

    /**
     * Whether a register is one of the psABI's link registers, ra (x1) and t0 (x5).
     *
     * @param register an integer register number
     * @return true for 1 and 5
     */
    public static boolean isLinkRegister(long register) {
        return register == 1 || register == 5;
    }
}
