package dev.splice.elf;

/** One symbol table entry, with its name resolved. {@code sectionIndex} may be a reserved index (SHN_ABS, ...). */
public record Symbol(int index, String name, long value, long size, int type, int binding,
                     int visibility, int sectionIndex) {
    public static final int STT_NOTYPE = 0;
    public static final int STT_OBJECT = 1;
    public static final int STT_FUNC = 2;
    public static final int STT_SECTION = 3;
    public static final int STT_FILE = 4;
    public static final int STT_COMMON = 5;
    public static final int STT_TLS = 6;
    public static final int STT_GNU_IFUNC = 10;

    public static final int STB_LOCAL = 0;
    public static final int STB_GLOBAL = 1;
    public static final int STB_WEAK = 2;
    public static final int STB_GNU_UNIQUE = 10;

    public static final int STV_DEFAULT = 0;
    public static final int STV_INTERNAL = 1;
    public static final int STV_HIDDEN = 2;
    public static final int STV_PROTECTED = 3;

    /** Size of one symbol table entry in ELF64. */
    public static final int ENTRY_SIZE = 24;

    public boolean isFunction() {
        return type == STT_FUNC;
    }

    public boolean isGlobal() {
        return binding == STB_GLOBAL;
    }

    public boolean isLocal() {
        return binding == STB_LOCAL;
    }

    /** True when the symbol is defined in a real section (not undefined, absolute or common). */
    public boolean isDefinedInSection() {
        return sectionIndex != Section.SHN_UNDEF && sectionIndex < Section.SHN_LORESERVE;
    }

    /** The st_info byte. */
    public int info() {
        return (binding << 4) | (type & 0xf);
    }
}
