package dev.splice.elf;

import dev.splice.base.Le;

/**
 * The ELF64 file header as stored. {@code phnum}, {@code shnum} and {@code shstrndx} are the raw
 * e_* fields (they may hold the escape values PN_XNUM / 0 / SHN_XINDEX for extended numbering);
 * {@link ElfFile#sections()} and {@link ElfFile#segments()} give the real tables.
 */
public record ElfHeader(int elfClass, int dataEncoding, int identVersion, int osAbi, int abiVersion,
                        int type, int machine, int version, long entry, long phoff, long shoff,
                        int flags, int ehsize, int phentsize, int phnum, int shentsize, int shnum,
                        int shstrndx) {
    /** Size of the ELF64 file header. */
    public static final int SIZE = 64;
    /** e_ident[EI_CLASS]: 64-bit objects. */
    public static final int ELFCLASS64 = 2;
    /** e_ident[EI_DATA]: little-endian. */
    public static final int ELFDATA2LSB = 1;
    /** e_ident[EI_VERSION] and e_version: the current version. */
    public static final int EV_CURRENT = 1;

    /** e_type: no file type. */
    public static final int ET_NONE = 0;
    /** e_type: relocatable object. */
    public static final int ET_REL = 1;
    /** e_type: executable (position-dependent). */
    public static final int ET_EXEC = 2;
    /** e_type: shared object or position-independent executable. */
    public static final int ET_DYN = 3;
    /** e_type: core dump. */
    public static final int ET_CORE = 4;

    /** e_machine: AMD x86-64. */
    public static final int EM_X86_64 = 62;
    /** e_machine: ARM AArch64. */
    public static final int EM_AARCH64 = 183;
    /** e_machine: RISC-V. */
    public static final int EM_RISCV = 243;

    /** e_flags on RISC-V: the file may contain compressed (RVC) instructions. */
    public static final int EF_RISCV_RVC = 0x1;
    /** e_flags on RISC-V: the double-precision floating-point ABI (lp64d). */
    public static final int EF_RISCV_FLOAT_ABI_DOUBLE = 0x4;

    /** e_phnum escape: the real count is in section 0's sh_info. */
    public static final int PN_XNUM = 0xffff;

    /** {@return the readelf-style name of the file type ("EXEC", "DYN", ...; hex for others)} */
    public String typeName() {
        return switch (type) {
            case ET_NONE -> "NONE";
            case ET_REL -> "REL";
            case ET_EXEC -> "EXEC";
            case ET_DYN -> "DYN";
            case ET_CORE -> "CORE";
            default -> "0x" + Integer.toHexString(type);
        };
    }

    /** {@return a short name of the machine ("RISC-V", "x86-64", or the number)} */
    public String machineName() {
        return switch (machine) {
            case EM_RISCV -> "RISC-V";
            case EM_X86_64 -> "x86-64";
            case EM_AARCH64 -> "AArch64";
            default -> "machine " + machine;
        };
    }

    /** Writes the e_* fields into {@code out} at {@code at} (the e_ident padding bytes are left as they are). */
    void writeTo(byte[] out, int at) {
        out[at] = 0x7f;
        out[at + 1] = 'E';
        out[at + 2] = 'L';
        out[at + 3] = 'F';
        out[at + 4] = (byte) elfClass;
        out[at + 5] = (byte) dataEncoding;
        out[at + 6] = (byte) identVersion;
        out[at + 7] = (byte) osAbi;
        out[at + 8] = (byte) abiVersion;
        Le.putU16(out, at + 16, type);
        Le.putU16(out, at + 18, machine);
        Le.putU32(out, at + 20, version);
        Le.putU64(out, at + 24, entry);
        Le.putU64(out, at + 32, phoff);
        Le.putU64(out, at + 40, shoff);
        Le.putU32(out, at + 48, flags);
        Le.putU16(out, at + 52, ehsize);
        Le.putU16(out, at + 54, phentsize);
        Le.putU16(out, at + 56, phnum);
        Le.putU16(out, at + 58, shentsize);
        Le.putU16(out, at + 60, shnum);
        Le.putU16(out, at + 62, shstrndx);
    }
}
