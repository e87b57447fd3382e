package dev.splice.listing;

import java.util.HashSet;
import java.util.Set;

/** Integer register names (x0..x31 and the ABI names), to tell a register operand from an immediate. */
final class Registers {
    private static final Set<String> INTEGER = new HashSet<>();

    static {
        String[] abi = {"zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "fp", "s1", "t3", "t4", "t5", "t6"};
        INTEGER.addAll(Set.of(abi));
        for (int i = 0; i < 32; i++) {
            INTEGER.add("x" + i);
        }
        for (int i = 0; i < 12; i++) {
            INTEGER.add("s" + i);
        }
        for (int i = 0; i < 8; i++) {
            INTEGER.add("a" + i);
        }
    }

    private Registers() {}

    /** True if {@code name} (any case) names an integer register. */
    static boolean isInteger(String name) {
        return INTEGER.contains(name.toLowerCase(java.util.Locale.ROOT));
    }
}
