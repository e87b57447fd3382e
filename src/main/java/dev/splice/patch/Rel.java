package dev.splice.patch;

/** RISC-V relocation type numbers (psABI) that the write-back reads, and their names for messages. */
final class Rel {
    private Rel() {}

    static final int NONE = 0, R32 = 1, R64 = 2, BRANCH = 16, JAL = 17, CALL = 18, CALL_PLT = 19, GOT_HI20 = 20,
            TLS_GOT_HI20 = 21, TLS_GD_HI20 = 22, PCREL_HI20 = 23, PCREL_LO12_I = 24, PCREL_LO12_S = 25, HI20 = 26,
            LO12_I = 27, LO12_S = 28, TPREL_HI20 = 29, TPREL_LO12_I = 30, TPREL_LO12_S = 31, TPREL_ADD = 32,
            ADD8 = 33, ADD16 = 34, ADD32 = 35, ADD64 = 36, SUB8 = 37, SUB16 = 38, SUB32 = 39, SUB64 = 40,
            ALIGN = 43, RVC_BRANCH = 44, RVC_JUMP = 45, GPREL_I = 47, GPREL_S = 48, TPREL_I = 49, TPREL_S = 50,
            RELAX = 51, SUB6 = 52, SET6 = 53, SET8 = 54, SET16 = 55, SET32 = 56, PCREL32 = 57, SET_ULEB128 = 60,
            SUB_ULEB128 = 61;

    static boolean isPcrelLo(int type) {
        return type == PCREL_LO12_I || type == PCREL_LO12_S;
    }

    /** Types that may sit on moved code and need nothing (markers, or absolute/gp/tp-relative values). */
    static boolean isPositionIndependent(int type) {
        return switch (type) {
            case NONE, RELAX, ALIGN, TPREL_HI20, TPREL_LO12_I, TPREL_LO12_S, TPREL_ADD, GPREL_I, GPREL_S, TPREL_I,
                    TPREL_S -> true;
            default -> false;
        };
    }

    static String name(int type) {
        return switch (type) {
            case NONE -> "R_RISCV_NONE";
            case R32 -> "R_RISCV_32";
            case R64 -> "R_RISCV_64";
            case BRANCH -> "R_RISCV_BRANCH";
            case JAL -> "R_RISCV_JAL";
            case CALL -> "R_RISCV_CALL";
            case CALL_PLT -> "R_RISCV_CALL_PLT";
            case GOT_HI20 -> "R_RISCV_GOT_HI20";
            case TLS_GOT_HI20 -> "R_RISCV_TLS_GOT_HI20";
            case TLS_GD_HI20 -> "R_RISCV_TLS_GD_HI20";
            case PCREL_HI20 -> "R_RISCV_PCREL_HI20";
            case PCREL_LO12_I -> "R_RISCV_PCREL_LO12_I";
            case PCREL_LO12_S -> "R_RISCV_PCREL_LO12_S";
            case HI20 -> "R_RISCV_HI20";
            case LO12_I -> "R_RISCV_LO12_I";
            case LO12_S -> "R_RISCV_LO12_S";
            case ADD8 -> "R_RISCV_ADD8";
            case ADD16 -> "R_RISCV_ADD16";
            case ADD32 -> "R_RISCV_ADD32";
            case ADD64 -> "R_RISCV_ADD64";
            case SUB8 -> "R_RISCV_SUB8";
            case SUB16 -> "R_RISCV_SUB16";
            case SUB32 -> "R_RISCV_SUB32";
            case SUB64 -> "R_RISCV_SUB64";
            case RVC_BRANCH -> "R_RISCV_RVC_BRANCH";
            case RVC_JUMP -> "R_RISCV_RVC_JUMP";
            case SUB6 -> "R_RISCV_SUB6";
            case SET6 -> "R_RISCV_SET6";
            case SET8 -> "R_RISCV_SET8";
            case SET16 -> "R_RISCV_SET16";
            case SET32 -> "R_RISCV_SET32";
            case PCREL32 -> "R_RISCV_32_PCREL";
            case SET_ULEB128 -> "R_RISCV_SET_ULEB128";
            case SUB_ULEB128 -> "R_RISCV_SUB_ULEB128";
            default -> "relocation type " + type;
        };
    }
}
