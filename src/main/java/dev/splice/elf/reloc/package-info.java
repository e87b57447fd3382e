/**
 * Relocation types per machine, numbered and named as the psABIs do
 * ({@link dev.splice.elf.reloc.RiscVRelocations}, {@link dev.splice.elf.reloc.X86Relocations}),
 * and the RISC-V build attributes ({@link dev.splice.elf.reloc.RiscVAttributes}).
 */
package dev.splice.elf.reloc;
