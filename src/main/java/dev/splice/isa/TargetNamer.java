package dev.splice.isa;

/** Names a pc-relative target in printed text (a label, a hex address, a relative offset...). */
@FunctionalInterface
public interface TargetNamer {
    /**
     * Appends the name of a target.
     *
     * @param out where the text goes
     * @param pc the address of the instruction
     * @param target the address it branches to
     */
    void append(StringBuilder out, long pc, long target);

    /**
     * The same into a byte buffer. This default goes through a StringBuilder; namers on a hot path
     * (the listing writer's) override it to append bytes directly.
     *
     * @param out where the text goes
     * @param pc the address of the instruction
     * @param target the address it branches to
     */
    default void append(TextBuffer out, long pc, long target) {
        StringBuilder text = new StringBuilder(24);
        append(text, pc, target);
        out.append(text.toString());
    }

    /** Prints the absolute target as 0x... hex. */
    TargetNamer ABSOLUTE = new TargetNamer() {
        @Override
        public void append(StringBuilder out, long pc, long target) {
            out.append("0x").append(Long.toHexString(target));
        }

        @Override
        public void append(TextBuffer out, long pc, long target) {
            out.append((byte) '0').append((byte) 'x').appendHex(target);
        }
    };
}
