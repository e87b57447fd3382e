package dev.splice.elf;

/**
 * One section header, with its name resolved. {@code offset} and {@code size} are in file bytes
 * (a NOBITS section occupies no file bytes, whatever its size says).
 */
public record Section(int index, String name, int type, long flags, long address, long offset,
                      long size, int link, int info, long alignment, long entrySize) {
    public static final int SHT_NULL = 0;
    public static final int SHT_PROGBITS = 1;
    public static final int SHT_SYMTAB = 2;
    public static final int SHT_STRTAB = 3;
    public static final int SHT_RELA = 4;
    public static final int SHT_HASH = 5;
    public static final int SHT_DYNAMIC = 6;
    public static final int SHT_NOTE = 7;
    public static final int SHT_NOBITS = 8;
    public static final int SHT_REL = 9;
    public static final int SHT_DYNSYM = 11;
    public static final int SHT_INIT_ARRAY = 14;
    public static final int SHT_FINI_ARRAY = 15;
    public static final int SHT_PREINIT_ARRAY = 16;
    public static final int SHT_GROUP = 17;
    public static final int SHT_SYMTAB_SHNDX = 18;

    public static final long SHF_WRITE = 0x1;
    public static final long SHF_ALLOC = 0x2;
    public static final long SHF_EXECINSTR = 0x4;
    public static final long SHF_MERGE = 0x10;
    public static final long SHF_STRINGS = 0x20;
    public static final long SHF_INFO_LINK = 0x40;
    public static final long SHF_LINK_ORDER = 0x80;
    public static final long SHF_TLS = 0x400;

    /** Reserved section indices (symbols' st_shndx, e_shstrndx). */
    public static final int SHN_UNDEF = 0;
    public static final int SHN_LORESERVE = 0xff00;
    public static final int SHN_ABS = 0xfff1;
    public static final int SHN_COMMON = 0xfff2;
    public static final int SHN_XINDEX = 0xffff;

    /** Size of one section header in ELF64. */
    public static final int HEADER_SIZE = 64;

    public boolean isExecutable() {
        return (flags & SHF_EXECINSTR) != 0;
    }

    public boolean isAllocated() {
        return (flags & SHF_ALLOC) != 0;
    }

    public boolean isNobits() {
        return type == SHT_NOBITS;
    }

    /** True when this section is allocated and {@code address} lies in [address, address + size). */
    public boolean contains(long address) {
        return isAllocated() && address - this.address >= 0 && address - this.address < size;
    }

    /** The number of bytes this section occupies in the file (0 for NOBITS and NULL). */
    public long fileSize() {
        return type == SHT_NOBITS || type == SHT_NULL ? 0 : size;
    }

    /** The readelf-style name of the type ("PROGBITS", "NOBITS", ...; hex for unknown types). */
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
            case 0x6ffffff6 -> "GNU_HASH";
            case 0x6ffffffd -> "VERDEF";
            case 0x6ffffffe -> "VERNEED";
            case 0x6fffffff -> "VERSYM";
            case 0x70000003 -> "RISCV_ATTRIBUTES";
            case 0x70000001 -> "X86_64_UNWIND";
            default -> "0x" + Integer.toHexString(type);
        };
    }

    /** The flags as readelf letters: W write, A alloc, X exec, M merge, S strings, I info, L link order, T TLS, ... */
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

    /** The first address after the section. */
    public long endAddress() {
        return address + size;
    }
}
