package dev.splice.elf.reloc;

/**
 * The x86-64 relocation types (r_info's type for e_machine EM_X86_64), numbered and named as in the
 * System V AMD64 psABI (table "Relocation Types"). In the descriptions S is the symbol's value, A
 * the addend, P the address of the field, G the offset of the symbol's GOT entry, GOT the GOT's
 * address, L the PLT entry's address and B the load base.
 */
public final class X86Relocations {
    private X86Relocations() {}

    /** No relocation. */
    public static final int R_X86_64_NONE = 0;
    /** A 64-bit absolute value: S + A. */
    public static final int R_X86_64_64 = 1;
    /** A 32-bit signed pc-relative value: S + A - P. */
    public static final int R_X86_64_PC32 = 2;
    /** A 32-bit offset of the symbol's GOT entry: G + A. */
    public static final int R_X86_64_GOT32 = 3;
    /** A 32-bit pc-relative offset of the symbol's PLT entry: L + A - P. */
    public static final int R_X86_64_PLT32 = 4;
    /** Dynamic: copy the symbol's data at load time. */
    public static final int R_X86_64_COPY = 5;
    /** Dynamic: set a GOT entry to the symbol's address. */
    public static final int R_X86_64_GLOB_DAT = 6;
    /** Dynamic: a PLT slot, resolved lazily. */
    public static final int R_X86_64_JUMP_SLOT = 7;
    /** Dynamic: adjust by the load base, B + A. */
    public static final int R_X86_64_RELATIVE = 8;
    /** A 32-bit signed pc-relative offset of the symbol's GOT entry: G + GOT + A - P. */
    public static final int R_X86_64_GOTPCREL = 9;
    /** A 32-bit zero-extended absolute value: S + A. */
    public static final int R_X86_64_32 = 10;
    /** A 32-bit sign-extended absolute value: S + A. */
    public static final int R_X86_64_32S = 11;
    /** A 16-bit absolute value: S + A. */
    public static final int R_X86_64_16 = 12;
    /** A 16-bit pc-relative value: S + A - P. */
    public static final int R_X86_64_PC16 = 13;
    /** An 8-bit absolute value: S + A. */
    public static final int R_X86_64_8 = 14;
    /** An 8-bit pc-relative value: S + A - P. */
    public static final int R_X86_64_PC8 = 15;
    /** Dynamic TLS: the module of a thread-local symbol. */
    public static final int R_X86_64_DTPMOD64 = 16;
    /** Dynamic TLS: offset in the module's TLS block. */
    public static final int R_X86_64_DTPOFF64 = 17;
    /** Dynamic TLS: offset in the initial TLS block. */
    public static final int R_X86_64_TPOFF64 = 18;
    /** A 32-bit pc-relative offset of a TLS global-dynamic GOT entry pair. */
    public static final int R_X86_64_TLSGD = 19;
    /** A 32-bit pc-relative offset of a TLS local-dynamic GOT entry pair. */
    public static final int R_X86_64_TLSLD = 20;
    /** A 32-bit offset in the module's TLS block. */
    public static final int R_X86_64_DTPOFF32 = 21;
    /** A 32-bit pc-relative offset of a TLS initial-exec GOT entry. */
    public static final int R_X86_64_GOTTPOFF = 22;
    /** A 32-bit offset in the initial TLS block. */
    public static final int R_X86_64_TPOFF32 = 23;
    /** A 64-bit pc-relative value: S + A - P. */
    public static final int R_X86_64_PC64 = 24;
    /** A 64-bit offset from the GOT: S + A - GOT. */
    public static final int R_X86_64_GOTOFF64 = 25;
    /** A 32-bit pc-relative offset of the GOT: GOT + A - P. */
    public static final int R_X86_64_GOTPC32 = 26;
    /** A 64-bit offset of the symbol's GOT entry. */
    public static final int R_X86_64_GOT64 = 27;
    /** A 64-bit pc-relative offset of the symbol's GOT entry. */
    public static final int R_X86_64_GOTPCREL64 = 28;
    /** A 64-bit pc-relative offset of the GOT. */
    public static final int R_X86_64_GOTPC64 = 29;
    /** Like GOT64, and a PLT entry is needed. */
    public static final int R_X86_64_GOTPLT64 = 30;
    /** A 64-bit offset of the symbol's PLT entry from the GOT. */
    public static final int R_X86_64_PLTOFF64 = 31;
    /** The symbol's size plus the addend, 32 bits. */
    public static final int R_X86_64_SIZE32 = 32;
    /** The symbol's size plus the addend, 64 bits. */
    public static final int R_X86_64_SIZE64 = 33;
    /** A 32-bit pc-relative offset of a TLS descriptor in the GOT. */
    public static final int R_X86_64_GOTPC32_TLSDESC = 34;
    /** Marks the call through a TLS descriptor. */
    public static final int R_X86_64_TLSDESC_CALL = 35;
    /** Dynamic TLS: a TLS descriptor. */
    public static final int R_X86_64_TLSDESC = 36;
    /** Dynamic: the address returned by the resolver at B + A (ifunc). */
    public static final int R_X86_64_IRELATIVE = 37;
    /** Dynamic: a 64-bit adjustment by the load base (ILP32). */
    public static final int R_X86_64_RELATIVE64 = 38;
    /** Like GOTPCREL, on an instruction the linker may relax. */
    public static final int R_X86_64_GOTPCRELX = 41;
    /** Like GOTPCREL, on an instruction with a REX prefix the linker may relax. */
    public static final int R_X86_64_REX_GOTPCRELX = 42;

    /**
     * The psABI name of a relocation type ({@code "R_X86_64_PC32"}), or {@code "relocation type N"} for a
     * number this table does not hold.
     *
     * @param type the type from r_info
     * @return its name, for messages and listings
     */
    public static String name(int type) {
        return switch (type) {
            case R_X86_64_NONE -> "R_X86_64_NONE";
            case R_X86_64_64 -> "R_X86_64_64";
            case R_X86_64_PC32 -> "R_X86_64_PC32";
            case R_X86_64_GOT32 -> "R_X86_64_GOT32";
            case R_X86_64_PLT32 -> "R_X86_64_PLT32";
            case R_X86_64_COPY -> "R_X86_64_COPY";
            case R_X86_64_GLOB_DAT -> "R_X86_64_GLOB_DAT";
            case R_X86_64_JUMP_SLOT -> "R_X86_64_JUMP_SLOT";
            case R_X86_64_RELATIVE -> "R_X86_64_RELATIVE";
            case R_X86_64_GOTPCREL -> "R_X86_64_GOTPCREL";
            case R_X86_64_32 -> "R_X86_64_32";
            case R_X86_64_32S -> "R_X86_64_32S";
            case R_X86_64_16 -> "R_X86_64_16";
            case R_X86_64_PC16 -> "R_X86_64_PC16";
            case R_X86_64_8 -> "R_X86_64_8";
            case R_X86_64_PC8 -> "R_X86_64_PC8";
            case R_X86_64_DTPMOD64 -> "R_X86_64_DTPMOD64";
            case R_X86_64_DTPOFF64 -> "R_X86_64_DTPOFF64";
            case R_X86_64_TPOFF64 -> "R_X86_64_TPOFF64";
            case R_X86_64_TLSGD -> "R_X86_64_TLSGD";
            case R_X86_64_TLSLD -> "R_X86_64_TLSLD";
            case R_X86_64_DTPOFF32 -> "R_X86_64_DTPOFF32";
            case R_X86_64_GOTTPOFF -> "R_X86_64_GOTTPOFF";
            case R_X86_64_TPOFF32 -> "R_X86_64_TPOFF32";
            case R_X86_64_PC64 -> "R_X86_64_PC64";
            case R_X86_64_GOTOFF64 -> "R_X86_64_GOTOFF64";
            case R_X86_64_GOTPC32 -> "R_X86_64_GOTPC32";
            case R_X86_64_GOT64 -> "R_X86_64_GOT64";
            case R_X86_64_GOTPCREL64 -> "R_X86_64_GOTPCREL64";
            case R_X86_64_GOTPC64 -> "R_X86_64_GOTPC64";
            case R_X86_64_GOTPLT64 -> "R_X86_64_GOTPLT64";
            case R_X86_64_PLTOFF64 -> "R_X86_64_PLTOFF64";
            case R_X86_64_SIZE32 -> "R_X86_64_SIZE32";
            case R_X86_64_SIZE64 -> "R_X86_64_SIZE64";
            case R_X86_64_GOTPC32_TLSDESC -> "R_X86_64_GOTPC32_TLSDESC";
            case R_X86_64_TLSDESC_CALL -> "R_X86_64_TLSDESC_CALL";
            case R_X86_64_TLSDESC -> "R_X86_64_TLSDESC";
            case R_X86_64_IRELATIVE -> "R_X86_64_IRELATIVE";
            case R_X86_64_RELATIVE64 -> "R_X86_64_RELATIVE64";
            case R_X86_64_GOTPCRELX -> "R_X86_64_GOTPCRELX";
            case R_X86_64_REX_GOTPCRELX -> "R_X86_64_REX_GOTPCRELX";
            default -> "relocation type " + type;
        };
    }
}
