package dev.splice.listing;

import dev.splice.base.Hex;
import java.util.ArrayList;
import java.util.List;

/**
 * The instruction sequence for {@code li rd, value}, the same one GNU as (binutils 2.40, without
 * compressed instructions) builds: a 12-bit value is one {@code addi rd, zero, v}; a sign-extended
 * 32-bit value is {@code lui} and/or {@code addiw}; a wider value recursively builds its upper
 * bits, shifts them into place with {@code slli} and adds the low 12 bits with {@code addi}.
 */
final class LoadImmediate {
    /** One instruction of the sequence: mnemonic, and its immediate operand (rs1 is implied). */
    record Part(String mnemonic, boolean fromZero, long immediate) {}

    private LoadImmediate() {}

    static List<Part> sequence(long value) {
        List<Part> parts = new ArrayList<>(8);
        if (value >= -2048 && value <= 2047) {
            parts.add(new Part("addi", true, value));
        } else {
            build(value, parts);
        }
        return parts;
    }

    private static void build(long value, List<Part> parts) {
        long lower = ((value & 0xfff) ^ 0x800) - 0x800;
        long upper = value - lower;
        if (value != (int) value) {
            int shift = 12;
            while (((upper >> shift) & 1) == 0) {
                shift++;
            }
            build(upper >> shift, parts);
            parts.add(new Part("slli", false, shift));
            if (lower != 0) {
                parts.add(new Part("addi", false, lower));
            }
        } else {
            boolean high = false;
            if (upper != 0) {
                parts.add(new Part("lui", false, (upper & 0xffffffffL) >>> 12));
                high = true;
            }
            if (lower != 0 || !high) {
                parts.add(new Part("addiw", !high, lower));
            }
        }
    }

    /** The instructions as (mnemonic, operand text) steps for register {@code rd}. */
    static List<Pseudos.Step> steps(Operand rd, long value) {
        return steps(rd, sequence(value));
    }

    /**
     * GNU as's sequence for {@code la}/{@code lla} of a constant (which must fit in 32 signed
     * bits): lui and/or addiw, without li's single-addi form for 12-bit values.
     */
    static List<Pseudos.Step> addressSteps(Operand rd, long value) {
        List<Part> parts = new ArrayList<>(2);
        build(value, parts);
        return steps(rd, parts);
    }

    private static List<Pseudos.Step> steps(Operand rd, List<Part> parts) {
        List<Pseudos.Step> steps = new ArrayList<>(8);
        for (Part part : parts) {
            OperandText operands = switch (part.mnemonic()) {
                case "lui" -> OperandText.of(rd, Hex.of(part.immediate()));
                case "slli" -> OperandText.of(rd, rd, Long.toString(part.immediate()));
                default -> OperandText.of(rd, part.fromZero() ? "zero" : rd, Long.toString(part.immediate()));
            };
            steps.add(new Pseudos.Step(part.mnemonic(), operands));
        }
        return steps;
    }
}
