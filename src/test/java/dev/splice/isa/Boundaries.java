package dev.splice.isa;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Operand tuples with boundary values (min, max, zero, +-1, +-alignment) for table entries. */
final class Boundaries {
    private Boundaries() {}

    /** A typical valid value of a field, used while another field takes its boundary values. */
    static long typical(Field f) {
        return switch (f.kind) {
            case XREG, XREGQ, FREG, FREGQ -> 10;
            case CLUI -> 1;
            case CSR -> 0x300;
            case RM -> 7;
            case RMX -> 0;
            case FENCE -> 15;
            // Distinct vector registers aligned for any group (LMUL 8), none of them the mask v0.
            case VREG -> f.name().equals("vs2") ? 16 : f.name().equals("vs1") ? 24 : 8;
            case VMASK -> 1;
            case VTYPE -> 0xd1; // e32, m2, ta, ma
            default -> f.alignment();
        };
    }

    /** The boundary values of a field that fit it. */
    static List<Long> values(Field f) {
        Set<Long> v = new LinkedHashSet<>();
        switch (f.kind) {
            case XREG, FREG -> v.addAll(List.of(0L, 1L, 2L, 15L, 31L));
            case XREGQ, FREGQ -> v.addAll(List.of(8L, 15L));
            case VREG -> v.addAll(List.of(0L, 1L, 2L, 4L, 15L, 31L));
            case VTYPE -> { // every vtype with a text form, and reserved ones
                for (long t = 0; t < 256; t++) {
                    v.add(t);
                }
                v.addAll(List.of(0x100L, f.maxValue()));
            }
            case RM -> v.addAll(List.of(0L, 1L, 2L, 3L, 4L, 7L));
            case RMX -> v.addAll(List.of(0L, 1L, 2L, 3L, 4L, 7L));
            case FLI -> {
                for (long s = 0; s < 32; s++) {
                    v.add(s);
                }
            }
            case FENCE -> {
                for (long s = 0; s < 16; s++) {
                    v.add(s);
                }
            }
            case CSR -> {
                v.addAll(List.of(0L, 1L, 0xfffL));
                v.addAll(Isa.rv64().csrNames().keySet().stream().map(Integer::longValue).toList());
            }
            default -> {
                long a = f.alignment();
                v.addAll(List.of(f.minValue(), f.minValue() + a, -a, 0L, a, f.maxValue() - a + 1, f.maxValue() + 1 - a,
                        f.maxValue(), 1L, -1L));
                v.add(f.maxValue() - (f.maxValue() % a));
            }
        }
        List<Long> out = new ArrayList<>();
        for (long x : v) {
            if (f.check(x) == null) {
                out.add(x);
            }
        }
        return out;
    }

    /** One tuple per (field, boundary value), others typical; tuples hitting reserved values are skipped. */
    static List<long[]> tuples(Opcode op) {
        Field[] fs = op.fields;
        long[] base = new long[fs.length];
        for (int i = 0; i < fs.length; i++) {
            base[i] = typical(fs[i]);
        }
        List<long[]> out = new ArrayList<>();
        out.add(base);
        for (int i = 0; i < fs.length; i++) {
            for (long x : values(fs[i])) {
                if (x == base[i]) {
                    continue;
                }
                long[] t = base.clone();
                t[i] = x;
                out.add(t);
            }
        }
        return out;
    }
}
