package dev.splice.elf;

/** One program header. */
public record Segment(int index, int type, int flags, long offset, long virtualAddress,
                      long physicalAddress, long fileSize, long memorySize, long alignment) {
    public static final int PT_NULL = 0;
    public static final int PT_LOAD = 1;
    public static final int PT_DYNAMIC = 2;
    public static final int PT_INTERP = 3;
    public static final int PT_NOTE = 4;
    public static final int PT_SHLIB = 5;
    public static final int PT_PHDR = 6;
    public static final int PT_TLS = 7;
    public static final int PT_GNU_EH_FRAME = 0x6474e550;
    public static final int PT_GNU_STACK = 0x6474e551;
    public static final int PT_GNU_RELRO = 0x6474e552;
    public static final int PT_GNU_PROPERTY = 0x6474e553;
    public static final int PT_RISCV_ATTRIBUTES = 0x70000003;

    public static final int PF_X = 1;
    public static final int PF_W = 2;
    public static final int PF_R = 4;

    /** Size of one program header in ELF64. */
    public static final int HEADER_SIZE = 56;

    public boolean isLoad() {
        return type == PT_LOAD;
    }

    public boolean isExecutable() {
        return (flags & PF_X) != 0;
    }

    /** True when {@code address} lies in this segment's memory image [vaddr, vaddr + memsz). */
    public boolean containsAddress(long address) {
        return address - virtualAddress >= 0 && address - virtualAddress < memorySize;
    }

    /** The flags as readelf prints them: "R E", "RW ", ... */
    public String flagsText() {
        return ((flags & PF_R) != 0 ? "R" : " ") + ((flags & PF_W) != 0 ? "W" : " ") + ((flags & PF_X) != 0 ? "E" : " ");
    }

    /** The readelf-style name of the type ("LOAD", "NOTE", ...; hex for unknown types). */
    public String typeName() {
        return switch (type) {
            case PT_NULL -> "NULL";
            case PT_LOAD -> "LOAD";
            case PT_DYNAMIC -> "DYNAMIC";
            case PT_INTERP -> "INTERP";
            case PT_NOTE -> "NOTE";
            case PT_SHLIB -> "SHLIB";
            case PT_PHDR -> "PHDR";
            case PT_TLS -> "TLS";
            case PT_GNU_EH_FRAME -> "GNU_EH_FRAME";
            case PT_GNU_STACK -> "GNU_STACK";
            case PT_GNU_RELRO -> "GNU_RELRO";
            case PT_GNU_PROPERTY -> "GNU_PROPERTY";
            case PT_RISCV_ATTRIBUTES -> "RISCV_ATTRIBUTES";
            default -> "0x" + Integer.toHexString(type);
        };
    }
}
