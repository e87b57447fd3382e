package dev.splice.elf;

/**
 * One section header, with its name resolved. {@code offset} and {@code size} are in file bytes
 * (a NOBITS section occupies no file bytes, whatever its size says).
 */
public record Section(int index, String name, int type, long flags, long address, long offset,
                      long size, int link, int info, long alignment, long entrySize) {
    /** sh_type: the inactive null section (index 0). */
    public static final int SHT_NULL = 0;
    /** sh_type: contents defined by the program. */
    public static final int SHT_PROGBITS = 1;
    /** sh_type: a symbol table (.symtab). */
    public static final int SHT_SYMTAB = 2;
    /** sh_type: a string table. */
    public static final int SHT_STRTAB = 3;
    /** sh_type: relocations with addends. */
    public static final int SHT_RELA = 4;
    /** sh_type: a symbol hash table. */
    public static final int SHT_HASH = 5;
    /** sh_type: dynamic linking information. */
    public static final int SHT_DYNAMIC = 6;
    /** sh_type: notes. */
    public static final int SHT_NOTE = 7;
    /** sh_type: occupies no file bytes (.bss). */
    public static final int SHT_NOBITS = 8;
    /** sh_type: relocations without addends. */
    public static final int SHT_REL = 9;
    /** sh_type: the dynamic symbol table (.dynsym). */
    public static final int SHT_DYNSYM = 11;
    /** sh_type: an array of constructors. */
    public static final int SHT_INIT_ARRAY = 14;
    /** sh_type: an array of destructors. */
    public static final int SHT_FINI_ARRAY = 15;
    /** sh_type: an array of pre-constructors. */
    public static final int SHT_PREINIT_ARRAY = 16;
    /** sh_type: a section group. */
    public static final int SHT_GROUP = 17;
    /** sh_type: extended section indices of a symbol table. */
    public static final int SHT_SYMTAB_SHNDX = 18;
    /** sh_type: the RISC-V attributes (.riscv.attributes). */
    public static final int SHT_RISCV_ATTRIBUTES = 0x70000003;
    /** sh_type: x86-64 unwind tables. */
    public static final int SHT_X86_64_UNWIND = 0x70000001;
    /** sh_type: the GNU hash table. */
    public static final int SHT_GNU_HASH = 0x6ffffff6;
    /** sh_type: symbol version definitions (GNU). */
    public static final int SHT_GNU_VERDEF = 0x6ffffffd;
    /** sh_type: symbol version needs (GNU). */
    public static final int SHT_GNU_VERNEED = 0x6ffffffe;
    /** sh_type: the symbol version table (GNU). */
    public static final int SHT_GNU_VERSYM = 0x6fffffff;

    /** sh_flags: writable at run time. */
    public static final long SHF_WRITE = 0x1;
    /** sh_flags: occupies memory at run time. */
    public static final long SHF_ALLOC = 0x2;
    /** sh_flags: holds machine instructions. */
    public static final long SHF_EXECINSTR = 0x4;
    /** sh_flags: may be merged. */
    public static final long SHF_MERGE = 0x10;
    /** sh_flags: holds NUL-terminated strings. */
    public static final long SHF_STRINGS = 0x20;
    /** sh_flags: sh_info holds a section index. */
    public static final long SHF_INFO_LINK = 0x40;
    /** sh_flags: ordered like the section sh_link names. */
    public static final long SHF_LINK_ORDER = 0x80;
    /** sh_flags: thread-local storage. */
    public static final long SHF_TLS = 0x400;

    /** Reserved section indices (symbols' st_shndx, e_shstrndx). */
    public static final int SHN_UNDEF = 0;
    /** Section index: the first reserved one. */
    public static final int SHN_LORESERVE = 0xff00;
    /** Section index: absolute values (symbols). */
    public static final int SHN_ABS = 0xfff1;
    /** Section index: common symbols. */
    public static final int SHN_COMMON = 0xfff2;
    /** Section index escape: the real index is elsewhere (SHT_SYMTAB_SHNDX, section 0's sh_link). */
    public static final int SHN_XINDEX = 0xffff;

    /** Size of one section header in ELF64. */
    public static final int HEADER_SIZE = 64;

    /** {@return true when SHF_EXECINSTR is set} */
    public boolean isExecutable() {
        return (flags & SHF_EXECINSTR) != 0;
    }

    /** {@return true when SHF_ALLOC is set} */
    public boolean isAllocated() {
        return (flags & SHF_ALLOC) != 0;
    }

    /** {@return true for SHT_NOBITS} */
    public boolean isNobits() {
        return type == SHT_NOBITS;
    }

    /**
     * Whether the section holds an address.
     *
     * @param address a virtual address
     * @return true when this section is allocated and {@code address} lies in [address, address + size)
     */
    public boolean contains(long address) {
        return isAllocated() && address - this.address >= 0 && address - this.address < size;
    }

    /** {@return the number of bytes this section occupies in the file (0 for NOBITS and NULL)} */
    public long fileSize() {
        return type == SHT_NOBITS || type == SHT_NULL ? 0 : size;
    }

    /** {@return the readelf-style name of the type ("PROGBITS", "NOBITS", ...; hex for unknown types)} */
    public String typeName() {
        return switch (type) {
            case SHT_NULL -> "NULL";
            case SHT_PROGBITS -> "PROGBITS";
            case SHT_SYMTAB -> "SYMTAB";
            case SHT_STRTAB -> "STRTAB";
            case SHT_RELA -> "RELA";
            case SHT_HASH -> "HASH";
            case SHT_DYNAMIC -> "DYNAMIC";
            case SHT_NOTE -> "NOTE";
            case SHT_NOBITS -> "NOBITS";
            case SHT_REL -> "REL";
            case SHT_DYNSYM -> "DYNSYM";
            case SHT_INIT_ARRAY -> "INIT_ARRAY";
            case SHT_FINI_ARRAY -> "FINI_ARRAY";
            case SHT_PREINIT_ARRAY -> "PREINIT_ARRAY";
            case SHT_GROUP -> "GROUP";
            case SHT_SYMTAB_SHNDX -> "SYMTAB_SHNDX";
            case SHT_GNU_HASH -> "GNU_HASH";
            case SHT_GNU_VERDEF -> "VERDEF";
            case SHT_GNU_VERNEED -> "VERNEED";
            case SHT_GNU_VERSYM -> "VERSYM";
            case SHT_RISCV_ATTRIBUTES -> "RISCV_ATTRIBUTES";
            case SHT_X86_64_UNWIND -> "X86_64_UNWIND";
            default -> "0x" + Integer.toHexString(type);
        };
    }

    /** {@return the flags as readelf letters: W write, A alloc, X exec, M merge, S strings, I info, L link order, T TLS, ...} */
    public String flagsText() {
        StringBuilder out = new StringBuilder();
        String letters = "WAX?MSILOGTC";
        for (int bit = 0; bit < letters.length(); bit++) {
            if ((flags & (1L << bit)) != 0 && letters.charAt(bit) != '?') {
                out.append(letters.charAt(bit));
            }
        }
        if ((flags & 0x200000L) != 0) {
            out.append('R'); // SHF_GNU_RETAIN
        }
        if ((flags & 0x80000000L) != 0) {
            out.append('E'); // SHF_EXCLUDE
        }
        if ((flags & 0x0ff00000L & ~0x200000L) != 0) {
            out.append('o');
        }
        if ((flags & 0x70000000L) != 0) {
            out.append('p');
        }
        if ((flags & ~0xfff00ff7L) != 0) {
            out.append('x');
        }
        return out.toString();
    }

    /** {@return the first address after the section} */
    public long endAddress() {
        return address + size;
    }
}
