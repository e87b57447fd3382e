package dev.splice.isa;

/** How an operand field's value is interpreted, printed and parsed. */
enum OperandKind {
    /** Integer register x0..x31. */
    XREG,
    /** Compressed integer register x8..x15 (3-bit field). */
    XREGQ,
    /** Floating-point register f0..f31. */
    FREG,
    /** Compressed floating-point register f8..f15. */
    FREGQ,
    /** Signed immediate, printed in decimal. */
    SIMM,
    /** Unsigned immediate, printed in decimal. */
    UIMM,
    /** Signed pc-relative byte offset to a branch or jump target. */
    PCREL,
    /** 20-bit upper immediate of lui/auipc, printed in hex. */
    HEX20,
    /** c.lui's 6-bit signed immediate, printed as the 20-bit value lui would use. */
    CLUI,
    /** 12-bit CSR number, printed by name when named. */
    CSR,
    /** Rounding mode; 5 and 6 are reserved; always printed in the exact form. */
    RM,
    /** Rounding mode of an exact conversion; rne (0) is the default and not printed. */
    RMX,
    /** A fence predecessor/successor set (i, o, r, w). */
    FENCE,
    /** Vector register v0..v31. */
    VREG,
    /** A vector instruction's vm bit: 0 is masked by v0 (printed "v0.t"), 1 (the default) unmasked. */
    VMASK,
    /** The vtype immediate of vsetvli/vsetivli, printed as "e32, m2, ta, ma" (reserved values in hex). */
    VTYPE,
    /** Zfa's fli constant index, printed and parsed as the constant ("1.0", "min", "inf"). */
    FLI;

    boolean signed() {
        return this == SIMM || this == PCREL || this == CLUI;
    }

    boolean register() {
        return this == XREG || this == XREGQ || this == FREG || this == FREGQ || this == VREG;
    }
}
