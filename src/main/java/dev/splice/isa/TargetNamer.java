package dev.splice.isa;

/** Names a pc-relative target in printed text (a label, a hex address, a relative offset...). */
@FunctionalInterface
public interface TargetNamer {
    void append(StringBuilder out, long pc, long target);

    /** Prints the absolute target as 0x... hex. */
    TargetNamer ABSOLUTE = (out, pc, target) -> out.append("0x").append(Long.toHexString(target));
}
