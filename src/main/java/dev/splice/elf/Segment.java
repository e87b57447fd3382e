package dev.splice.elf;

/** One program header. */
public record Segment(int index, int type, int flags, long offset, long virtualAddress,
                      long physicalAddress, long fileSize, long memorySize, long alignment) {
    /** p_type: unused entry. */
    public static final int PT_NULL = 0;
    /** p_type: a loadable segment. */
    public static final int PT_LOAD = 1;
    /** p_type: dynamic linking information. */
    public static final int PT_DYNAMIC = 2;
    /** p_type: the program interpreter's path. */
    public static final int PT_INTERP = 3;
    /** p_type: notes. */
    public static final int PT_NOTE = 4;
    /** p_type: reserved. */
    public static final int PT_SHLIB = 5;
    /** p_type: the program header table itself. */
    public static final int PT_PHDR = 6;
    /** p_type: the thread-local storage template. */
    public static final int PT_TLS = 7;
    /** p_type: .eh_frame_hdr (GNU). */
    public static final int PT_GNU_EH_FRAME = 0x6474e550;
    /** p_type: the stack's permissions (GNU). */
    public static final int PT_GNU_STACK = 0x6474e551;
    /** p_type: read-only after relocation (GNU). */
    public static final int PT_GNU_RELRO = 0x6474e552;
    /** p_type: .note.gnu.property (GNU). */
    public static final int PT_GNU_PROPERTY = 0x6474e553;
    /** p_type: the RISC-V attributes (.riscv.attributes). */
    public static final int PT_RISCV_ATTRIBUTES = 0x70000003;

    /** p_flags: executable. */
    public static final int PF_X = 1;
    /** p_flags: writable. */
    public static final int PF_W = 2;
    /** p_flags: readable. */
    public static final int PF_R = 4;

    /** Size of one program header in ELF64. */
    public static final int HEADER_SIZE = 56;

    /** {@return true for PT_LOAD} */
    public boolean isLoad() {
        return type == PT_LOAD;
    }

    /** {@return true when PF_X is set} */
    public boolean isExecutable() {
        return (flags & PF_X) != 0;
    }

    /**
     * Whether the segment's memory image holds an address.
     *
     * @param address a virtual address
     * @return true when {@code address} lies in [vaddr, vaddr + memsz)
     */
    public boolean containsAddress(long address) {
        return address - virtualAddress >= 0 && address - virtualAddress < memorySize;
    }

    /** {@return the flags as readelf prints them: "R E", "RW ", ...} */
    public String flagsText() {
        return ((flags & PF_R) != 0 ? "R" : " ") + ((flags & PF_W) != 0 ? "W" : " ") + ((flags & PF_X) != 0 ? "E" : " ");
    }

    /** {@return the readelf-style name of the type ("LOAD", "NOTE", ...; hex for unknown types)} */
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
