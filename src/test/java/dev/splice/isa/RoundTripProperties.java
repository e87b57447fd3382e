package dev.splice.isa;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import net.jqwik.api.Assume;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** For random valid words: decode, print exact, assemble with Splice's Encoder: the same bits. */
class RoundTripProperties {
    private static final Decoder DECODER = Isa.rv64().decoder(Extension.all());
    private static final List<Opcode> OPCODES = Isa.rv64().opcodes();

    @Property(tries = 20_000)
    void anyValidWordRoundTrips(@ForAll int random, @ForAll @IntRange(min = 0, max = 10_000) int row, @ForAll long pc) {
        Opcode chosen = OPCODES.get(row % OPCODES.size());
        // A word with the row's fixed bits and random operand bits; reserved values decode to null.
        int bits = chosen.match() | (random & ~chosen.mask());
        if (chosen.size() == 2) {
            bits &= 0xffff;
        }
        Opcode op = DECODER.decode(bits, chosen.size());
        Assume.that(op != null);
        roundTrip(op, bits, pc & ~1L);
    }

    @Property(tries = 20_000)
    void randomWordsThatDecodeRoundTrip(@ForAll int bits, @ForAll long pc) {
        int size = Decoder.length(bits & 0xffff);
        Assume.that(size == 2 || size == 4);
        int word = size == 2 ? bits & 0xffff : bits;
        Opcode op = DECODER.decode(word, size);
        Assume.that(op != null);
        roundTrip(op, word, pc & ~1L);
    }

    private static void roundTrip(Opcode op, int bits, long pc) {
        StringBuilder sb = new StringBuilder();
        Printer.EXACT.printOperands(op, bits, pc, sb, TargetNamer.ABSOLUTE);
        try {
            assertEquals(bits, Encoder.assemble(op, sb.toString(), pc, SymbolResolver.NONE),
                    op.mnemonic() + " " + sb);
        } catch (OperandException e) {
            throw new AssertionError(op.mnemonic() + " " + sb + ": " + e.getMessage(), e);
        }
    }
}
