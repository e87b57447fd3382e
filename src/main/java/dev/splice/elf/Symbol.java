package dev.splice.elf;

/** One symbol table entry, with its name resolved. {@code sectionIndex} may be a reserved index (SHN_ABS, ...). */
public record Symbol(int index, String name, long value, long size, int type, int binding,
                     int visibility, int sectionIndex) {
    /** Symbol type: unspecified. */
    public static final int STT_NOTYPE = 0;
    /** Symbol type: data object. */
    public static final int STT_OBJECT = 1;
    /** Symbol type: function. */
    public static final int STT_FUNC = 2;
    /** Symbol type: a section. */
    public static final int STT_SECTION = 3;
    /** Symbol type: the source file. */
    public static final int STT_FILE = 4;
    /** Symbol type: common data object. */
    public static final int STT_COMMON = 5;
    /** Symbol type: thread-local data object. */
    public static final int STT_TLS = 6;
    /** Symbol type: indirect function (GNU). */
    public static final int STT_GNU_IFUNC = 10;

    /** Symbol binding: local. */
    public static final int STB_LOCAL = 0;
    /** Symbol binding: global. */
    public static final int STB_GLOBAL = 1;
    /** Symbol binding: weak. */
    public static final int STB_WEAK = 2;
    /** Symbol binding: unique global (GNU). */
    public static final int STB_GNU_UNIQUE = 10;

    /** Symbol visibility: default. */
    public static final int STV_DEFAULT = 0;
    /** Symbol visibility: internal. */
    public static final int STV_INTERNAL = 1;
    /** Symbol visibility: hidden. */
    public static final int STV_HIDDEN = 2;
    /** Symbol visibility: protected. */
    public static final int STV_PROTECTED = 3;

    /** Size of one symbol table entry in ELF64. */
    public static final int ENTRY_SIZE = 24;

    /** {@return true for STT_FUNC} */
    public boolean isFunction() {
        return type == STT_FUNC;
    }

    /** {@return true for STB_GLOBAL} */
    public boolean isGlobal() {
        return binding == STB_GLOBAL;
    }

    /** {@return true for STB_LOCAL} */
    public boolean isLocal() {
        return binding == STB_LOCAL;
    }

    /** {@return true when the symbol is defined in a real section (not undefined, absolute or common)} */
    public boolean isDefinedInSection() {
        return sectionIndex != Section.SHN_UNDEF && sectionIndex < Section.SHN_LORESERVE;
    }

    /** {@return the st_info byte: binding and type} */
    public int info() {
        return (binding << 4) | (type & 0xf);
    }
}
