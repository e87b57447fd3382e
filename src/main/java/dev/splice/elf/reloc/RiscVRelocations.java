package dev.splice.elf.reloc;

/**
 * The RISC-V relocation types (r_info's type for e_machine EM_RISCV), numbered and named as in the
 * RISC-V ELF psABI ("ELF Object File" chapter, table "Relocation types"), with the GNU types that
 * binutils still knows (RVC_LUI, GPREL_I/S, TPREL_I/S). In the descriptions S is the symbol's value, A the
 * addend, P the address of the field and V its current contents.
 */
public final class RiscVRelocations {
    private RiscVRelocations() {}

    /** No relocation. */
    public static final int R_RISCV_NONE = 0;
    /** A 32-bit absolute value: S + A. */
    public static final int R_RISCV_32 = 1;
    /** A 64-bit absolute value: S + A. */
    public static final int R_RISCV_64 = 2;
    /** Dynamic: adjust by the load base, B + A. */
    public static final int R_RISCV_RELATIVE = 3;
    /** Dynamic: copy the symbol's data at load time. */
    public static final int R_RISCV_COPY = 4;
    /** Dynamic: a PLT slot, resolved lazily. */
    public static final int R_RISCV_JUMP_SLOT = 5;
    /** Dynamic TLS: the module of a thread-local symbol (32-bit). */
    public static final int R_RISCV_TLS_DTPMOD32 = 6;
    /** Dynamic TLS: the module of a thread-local symbol (64-bit). */
    public static final int R_RISCV_TLS_DTPMOD64 = 7;
    /** Dynamic TLS: offset in the module's TLS block (32-bit). */
    public static final int R_RISCV_TLS_DTPREL32 = 8;
    /** Dynamic TLS: offset in the module's TLS block (64-bit). */
    public static final int R_RISCV_TLS_DTPREL64 = 9;
    /** Dynamic TLS: offset from the thread pointer (32-bit). */
    public static final int R_RISCV_TLS_TPREL32 = 10;
    /** Dynamic TLS: offset from the thread pointer (64-bit). */
    public static final int R_RISCV_TLS_TPREL64 = 11;
    /** Dynamic TLS: a TLS descriptor. */
    public static final int R_RISCV_TLSDESC = 12;
    /** A 12-bit pc-relative conditional branch (B-type): S + A - P. */
    public static final int R_RISCV_BRANCH = 16;
    /** A 20-bit pc-relative jump (J-type): S + A - P. */
    public static final int R_RISCV_JAL = 17;
    /** An auipc + jalr pair calling S + A (deprecated in favour of CALL_PLT, same meaning). */
    public static final int R_RISCV_CALL = 18;
    /** An auipc + jalr pair calling S + A, through the PLT if needed. */
    public static final int R_RISCV_CALL_PLT = 19;
    /** The high 20 bits of the pc-relative offset of the symbol's GOT entry (auipc). */
    public static final int R_RISCV_GOT_HI20 = 20;
    /** The high 20 bits of the pc-relative offset of a TLS initial-exec GOT entry (auipc). */
    public static final int R_RISCV_TLS_GOT_HI20 = 21;
    /** The high 20 bits of the pc-relative offset of a TLS global-dynamic GOT entry (auipc). */
    public static final int R_RISCV_TLS_GD_HI20 = 22;
    /** The high 20 bits of a pc-relative offset, S + A - P (auipc). */
    public static final int R_RISCV_PCREL_HI20 = 23;
    /** The low 12 bits of the offset of the PCREL_HI20 its symbol names (I-type). */
    public static final int R_RISCV_PCREL_LO12_I = 24;
    /** The low 12 bits of the offset of the PCREL_HI20 its symbol names (S-type). */
    public static final int R_RISCV_PCREL_LO12_S = 25;
    /** The high 20 bits of an absolute address (lui). */
    public static final int R_RISCV_HI20 = 26;
    /** The low 12 bits of an absolute address (I-type). */
    public static final int R_RISCV_LO12_I = 27;
    /** The low 12 bits of an absolute address (S-type). */
    public static final int R_RISCV_LO12_S = 28;
    /** The high 20 bits of a thread-pointer offset (TLS local-exec, lui). */
    public static final int R_RISCV_TPREL_HI20 = 29;
    /** The low 12 bits of a thread-pointer offset (I-type). */
    public static final int R_RISCV_TPREL_LO12_I = 30;
    /** The low 12 bits of a thread-pointer offset (S-type). */
    public static final int R_RISCV_TPREL_LO12_S = 31;
    /** Marks the add of the thread pointer in a TLS local-exec sequence (for relaxation). */
    public static final int R_RISCV_TPREL_ADD = 32;
    /** 8-bit in-place addition: V + S + A. */
    public static final int R_RISCV_ADD8 = 33;
    /** 16-bit in-place addition: V + S + A. */
    public static final int R_RISCV_ADD16 = 34;
    /** 32-bit in-place addition: V + S + A. */
    public static final int R_RISCV_ADD32 = 35;
    /** 64-bit in-place addition: V + S + A. */
    public static final int R_RISCV_ADD64 = 36;
    /** 8-bit in-place subtraction: V - S - A. */
    public static final int R_RISCV_SUB8 = 37;
    /** 16-bit in-place subtraction: V - S - A. */
    public static final int R_RISCV_SUB16 = 38;
    /** 32-bit in-place subtraction: V - S - A. */
    public static final int R_RISCV_SUB32 = 39;
    /** 64-bit in-place subtraction: V - S - A. */
    public static final int R_RISCV_SUB64 = 40;
    /** A 32-bit pc-relative offset of the symbol's GOT entry (41 was R_RISCV_GNU_VTINHERIT in old binutils). */
    public static final int R_RISCV_GOT32_PCREL = 41;
    /** Marks alignment padding the linker may shrink (relaxation). */
    public static final int R_RISCV_ALIGN = 43;
    /** An 8-bit pc-relative compressed branch (CB-type): S + A - P. */
    public static final int R_RISCV_RVC_BRANCH = 44;
    /** An 11-bit pc-relative compressed jump (CJ-type): S + A - P. */
    public static final int R_RISCV_RVC_JUMP = 45;
    /** GNU: the high 6 bits of an absolute address in a c.lui (reserved in the current psABI). */
    public static final int R_RISCV_RVC_LUI = 46;
    /** GNU: the low 12 bits of a gp-relative offset (I-type), left by linker relaxation. */
    public static final int R_RISCV_GPREL_I = 47;
    /** GNU: the low 12 bits of a gp-relative offset (S-type), left by linker relaxation. */
    public static final int R_RISCV_GPREL_S = 48;
    /** GNU: the low 12 bits of a thread-pointer offset (I-type), left by linker relaxation. */
    public static final int R_RISCV_TPREL_I = 49;
    /** GNU: the low 12 bits of a thread-pointer offset (S-type), left by linker relaxation. */
    public static final int R_RISCV_TPREL_S = 50;
    /** Marks the instruction at the same offset as relaxable. */
    public static final int R_RISCV_RELAX = 51;
    /** 6-bit in-place subtraction on the low 6 bits (DWARF CFA advances). */
    public static final int R_RISCV_SUB6 = 52;
    /** Sets the low 6 bits: S + A. */
    public static final int R_RISCV_SET6 = 53;
    /** Sets 8 bits: S + A. */
    public static final int R_RISCV_SET8 = 54;
    /** Sets 16 bits: S + A. */
    public static final int R_RISCV_SET16 = 55;
    /** Sets 32 bits: S + A. */
    public static final int R_RISCV_SET32 = 56;
    /** A 32-bit pc-relative value: S + A - P. */
    public static final int R_RISCV_32_PCREL = 57;
    /** Dynamic: the address returned by the resolver at B + A (ifunc). */
    public static final int R_RISCV_IRELATIVE = 58;
    /** A 32-bit pc-relative offset of the symbol's PLT entry or the symbol. */
    public static final int R_RISCV_PLT32 = 59;
    /** Sets a ULEB128 field: S + A (paired with SUB_ULEB128). */
    public static final int R_RISCV_SET_ULEB128 = 60;
    /** Subtracts from a ULEB128 field: V - S - A (paired with SET_ULEB128). */
    public static final int R_RISCV_SUB_ULEB128 = 61;
    /** The high 20 bits of the pc-relative offset of a TLS descriptor (auipc). */
    public static final int R_RISCV_TLSDESC_HI20 = 62;
    /** The low 12 bits of the TLSDESC_HI20 its symbol names (the descriptor's load). */
    public static final int R_RISCV_TLSDESC_LOAD_LO12 = 63;
    /** The low 12 bits of the TLSDESC_HI20 its symbol names (the descriptor's addi). */
    public static final int R_RISCV_TLSDESC_ADD_LO12 = 64;
    /** Marks the call of the TLS descriptor's resolver. */
    public static final int R_RISCV_TLSDESC_CALL = 65;

    /**
     * The psABI name of a relocation type ({@code "R_RISCV_BRANCH"}), or {@code "relocation type N"} for a
     * number this table does not hold.
     *
     * @param type the type from r_info
     * @return its name, for messages and listings
     */
    public static String name(int type) {
        return switch (type) {
            case R_RISCV_NONE -> "R_RISCV_NONE";
            case R_RISCV_32 -> "R_RISCV_32";
            case R_RISCV_64 -> "R_RISCV_64";
            case R_RISCV_RELATIVE -> "R_RISCV_RELATIVE";
            case R_RISCV_COPY -> "R_RISCV_COPY";
            case R_RISCV_JUMP_SLOT -> "R_RISCV_JUMP_SLOT";
            case R_RISCV_TLS_DTPMOD32 -> "R_RISCV_TLS_DTPMOD32";
            case R_RISCV_TLS_DTPMOD64 -> "R_RISCV_TLS_DTPMOD64";
            case R_RISCV_TLS_DTPREL32 -> "R_RISCV_TLS_DTPREL32";
            case R_RISCV_TLS_DTPREL64 -> "R_RISCV_TLS_DTPREL64";
            case R_RISCV_TLS_TPREL32 -> "R_RISCV_TLS_TPREL32";
            case R_RISCV_TLS_TPREL64 -> "R_RISCV_TLS_TPREL64";
            case R_RISCV_TLSDESC -> "R_RISCV_TLSDESC";
            case R_RISCV_BRANCH -> "R_RISCV_BRANCH";
            case R_RISCV_JAL -> "R_RISCV_JAL";
            case R_RISCV_CALL -> "R_RISCV_CALL";
            case R_RISCV_CALL_PLT -> "R_RISCV_CALL_PLT";
            case R_RISCV_GOT_HI20 -> "R_RISCV_GOT_HI20";
            case R_RISCV_TLS_GOT_HI20 -> "R_RISCV_TLS_GOT_HI20";
            case R_RISCV_TLS_GD_HI20 -> "R_RISCV_TLS_GD_HI20";
            case R_RISCV_PCREL_HI20 -> "R_RISCV_PCREL_HI20";
            case R_RISCV_PCREL_LO12_I -> "R_RISCV_PCREL_LO12_I";
            case R_RISCV_PCREL_LO12_S -> "R_RISCV_PCREL_LO12_S";
            case R_RISCV_HI20 -> "R_RISCV_HI20";
            case R_RISCV_LO12_I -> "R_RISCV_LO12_I";
            case R_RISCV_LO12_S -> "R_RISCV_LO12_S";
            case R_RISCV_TPREL_HI20 -> "R_RISCV_TPREL_HI20";
            case R_RISCV_TPREL_LO12_I -> "R_RISCV_TPREL_LO12_I";
            case R_RISCV_TPREL_LO12_S -> "R_RISCV_TPREL_LO12_S";
            case R_RISCV_TPREL_ADD -> "R_RISCV_TPREL_ADD";
            case R_RISCV_ADD8 -> "R_RISCV_ADD8";
            case R_RISCV_ADD16 -> "R_RISCV_ADD16";
            case R_RISCV_ADD32 -> "R_RISCV_ADD32";
            case R_RISCV_ADD64 -> "R_RISCV_ADD64";
            case R_RISCV_SUB8 -> "R_RISCV_SUB8";
            case R_RISCV_SUB16 -> "R_RISCV_SUB16";
            case R_RISCV_SUB32 -> "R_RISCV_SUB32";
            case R_RISCV_SUB64 -> "R_RISCV_SUB64";
            case R_RISCV_GOT32_PCREL -> "R_RISCV_GOT32_PCREL";
            case R_RISCV_ALIGN -> "R_RISCV_ALIGN";
            case R_RISCV_RVC_BRANCH -> "R_RISCV_RVC_BRANCH";
            case R_RISCV_RVC_JUMP -> "R_RISCV_RVC_JUMP";
            case R_RISCV_RVC_LUI -> "R_RISCV_RVC_LUI";
            case R_RISCV_GPREL_I -> "R_RISCV_GPREL_I";
            case R_RISCV_GPREL_S -> "R_RISCV_GPREL_S";
            case R_RISCV_TPREL_I -> "R_RISCV_TPREL_I";
            case R_RISCV_TPREL_S -> "R_RISCV_TPREL_S";
            case R_RISCV_RELAX -> "R_RISCV_RELAX";
            case R_RISCV_SUB6 -> "R_RISCV_SUB6";
            case R_RISCV_SET6 -> "R_RISCV_SET6";
            case R_RISCV_SET8 -> "R_RISCV_SET8";
            case R_RISCV_SET16 -> "R_RISCV_SET16";
            case R_RISCV_SET32 -> "R_RISCV_SET32";
            case R_RISCV_32_PCREL -> "R_RISCV_32_PCREL";
            case R_RISCV_IRELATIVE -> "R_RISCV_IRELATIVE";
            case R_RISCV_PLT32 -> "R_RISCV_PLT32";
            case R_RISCV_SET_ULEB128 -> "R_RISCV_SET_ULEB128";
            case R_RISCV_SUB_ULEB128 -> "R_RISCV_SUB_ULEB128";
            case R_RISCV_TLSDESC_HI20 -> "R_RISCV_TLSDESC_HI20";
            case R_RISCV_TLSDESC_LOAD_LO12 -> "R_RISCV_TLSDESC_LOAD_LO12";
            case R_RISCV_TLSDESC_ADD_LO12 -> "R_RISCV_TLSDESC_ADD_LO12";
            case R_RISCV_TLSDESC_CALL -> "R_RISCV_TLSDESC_CALL";
            default -> "relocation type " + type;
        };
    }
}
