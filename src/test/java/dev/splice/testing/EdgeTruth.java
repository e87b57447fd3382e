package dev.splice.testing;

import dev.splice.cfg.FunctionEdges.EdgeKind;
import dev.splice.cfg.riscv.RiscVCfg;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import dev.splice.isa.ControlFlow;
import dev.splice.isa.Decoder;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import java.util.Map;

/**
 * The true count of a flow-network edge in a run, from QEMU's exec log ({@link ExecTrace}) and the
 * binary's bytes: a branch, jump or table edge is the pair (its instruction, its target); a
 * fall-through the pair (last instruction, next block), or after a call the returns to the next
 * block; an exit the executions of its instruction (a conditional tail call's, when taken); an
 * arrival the executions of the block's first instruction. Virtual edges the log does not show
 * (entries into in-nodes, calls that do not return) have none.
 *
 * @param elf the binary that ran
 * @param function the function's address
 * @param trace the run
 */
public record EdgeTruth(ElfFile elf, long function, ExecTrace trace) {
    private static final Isa ISA = Isa.rv64();
    private static final Decoder DECODER = ISA.decoder(ISA.extensions());

    /**
     * The edge's true count.
     *
     * @param kind its kind
     * @param fromOffset its source instruction's offset
     * @param toOffset its target offset
     * @param intoBlock for an entry: it enters a block (not an in-node)
     * @param fromCall its source instruction is a call
     * @return the count, or null when the log does not show the edge
     */
    public Long count(EdgeKind kind, int fromOffset, int toOffset, boolean intoBlock, boolean fromCall) {
        long from = function + fromOffset;
        long to = function + toOffset;
        return switch (kind) {
            case TAKEN, TABLE -> trace.followed(from, to);
            case JUMP -> flow(from) == ControlFlow.JUMP ? trace.followed(from, to) : trace.ran(from);
            case FALL_THROUGH -> fallThroughs(from, to, fromCall);
            case TAKEN_OR_FALL_THROUGH -> trace.ran(from);
            case EXIT -> flow(from) == ControlFlow.BRANCH ? trace.ran(from) - trace.followed(from, from + length(from))
                    : trace.ran(from);
            case ARRIVAL -> trace.ran(to);
            case ENTRY -> intoBlock ? trace.ran(to) : null;
            case LEAVES -> null;
        };
    }

    /**
     * Arrivals at {@code to} by running on from {@code from} or, after a call, by a return.
     *
     * @param from the address of the instruction before
     * @param to the arrival address
     * @param fromCall the instruction before is a call
     * @return how often
     */
    public long fallThroughs(long from, long to, boolean fromCall) {
        if (!fromCall) {
            return trace.followed(from, to);
        }
        long n = 0;
        for (Map.Entry<Long, Long> arrival : trace.arrivals(to).entrySet()) {
            if (isReturnAt(arrival.getKey())) {
                n += arrival.getValue();
            }
        }
        return n;
    }

    /** {@return the length of the instruction at an address} */
    public int length(long address) {
        Section s = elf.sectionContaining(address).orElseThrow();
        return (elf.contents(s)[(int) (address - s.address())] & 3) == 3 ? 4 : 2;
    }

    private ControlFlow flow(long address) {
        Section s = elf.sectionContaining(address).orElseThrow();
        byte[] b = elf.contents(s);
        int at = (int) (address - s.address());
        int packed = DECODER.decodeAt(b, at, b.length);
        Opcode op = DECODER.opcode(packed);
        int bits = 0;
        for (int i = 0; i < Decoder.size(packed); i++) {
            bits |= (b[at + i] & 0xff) << (8 * i);
        }
        return op == null ? ControlFlow.NONE : op.controlFlow(bits);
    }

    /**
     * A return that returns to its caller: not the unwinder's landing in a handler, which GCC's
     * {@code __builtin_eh_return} compiles to {@code add sp, sp, rX; ret} (the handler's stack
     * adjustment in a register; no normal epilogue adds a register to sp).
     */
    private boolean isReturnAt(long address) {
        Section s = elf.sectionContaining(address).orElse(null);
        if (s == null || !s.isExecutable() || !RiscVCfg.isReturn(elf.contents(s), (int) (address - s.address()))) {
            return false;
        }
        return !addsRegisterToSp(address - 2, 2) && !addsRegisterToSp(address - 4, 4);
    }

    private boolean addsRegisterToSp(long address, int size) {
        Section s = elf.sectionContaining(address).orElse(null);
        if (s == null) {
            return false;
        }
        byte[] b = elf.contents(s);
        int at = (int) (address - s.address());
        int bits = 0;
        for (int i = 0; i < size; i++) {
            bits |= (b[at + i] & 0xff) << (8 * i);
        }
        Opcode op = DECODER.decode(bits, size);
        return op != null && (op.mnemonic().equals("c.add") || op.mnemonic().equals("add"))
                && op.operand(bits, dev.splice.isa.Operand.RD) == 2 && op.operand(bits, dev.splice.isa.Operand.RS1) == 2;
    }
}
