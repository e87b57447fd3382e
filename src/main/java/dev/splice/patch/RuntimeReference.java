package dev.splice.patch;

/**
 * A placement-dependent word of the runtime's code in the output (an auipc pair, a call, a jump or
 * branch, an absolute address): {@link OutputRelocations} describes it in {@code .rela.splice.text},
 * so that BOLT's tools and a second {@code splice patch} know what the word refers to.
 *
 * @param at the word's address in the output
 * @param type the RISC-V relocation type ({@code R_RISCV_*})
 * @param target the address the word refers to (for the {@code PCREL_LO12} types: the auipc's)
 */
record RuntimeReference(long at, int type, long target) {}
