/**
 * ELF64 little-endian files: the validated model ({@link dev.splice.elf.ElfFile} with its
 * {@link dev.splice.elf.ElfHeader}, {@link dev.splice.elf.Section}s, {@link dev.splice.elf.Segment}s,
 * {@link dev.splice.elf.Symbol}s, {@link dev.splice.elf.Relocation}s, {@link dev.splice.elf.Note}s
 * and the {@link dev.splice.elf.Function}s of its FUNC symbols), the {@link dev.splice.elf.ElfEditor}
 * that writes it back, and {@link dev.splice.elf.ExecutableBuilder} for new executables.
 *
 * <p>The ELF constants are defined once, next to the field they describe: e_ident, e_type (ET_*),
 * e_machine (EM_*) and e_flags (EF_*) in {@link dev.splice.elf.ElfHeader}; sh_type (SHT_*),
 * sh_flags (SHF_*) and reserved section indices (SHN_*) in {@link dev.splice.elf.Section}; p_type
 * (PT_*) and p_flags (PF_*) in {@link dev.splice.elf.Segment}; symbol types, bindings and
 * visibilities (STT_*, STB_*, STV_*) in {@link dev.splice.elf.Symbol}; note types (NT_*) in
 * {@link dev.splice.elf.Note}. Relocation types per machine and the RISC-V attributes are in
 * {@link dev.splice.elf.reloc}; {@code .eh_frame}, {@code .eh_frame_hdr} and LSDAs in
 * {@link dev.splice.elf.unwind}.
 */
package dev.splice.elf;
