/**
 * Unwind tables: one parser of {@code .eh_frame} ({@link dev.splice.elf.unwind.EhFrame}, with its
 * CFA programs read by {@link dev.splice.elf.unwind.CfaReader}), the {@code .eh_frame_hdr} search
 * table ({@link dev.splice.elf.unwind.EhFrameHeader}), LSDA call-site tables
 * ({@link dev.splice.elf.unwind.Lsda}), the DW_EH_PE pointer encodings and the CFA advance encoding
 * a rewriter needs ({@link dev.splice.elf.unwind.PointerEncoding}, {@link dev.splice.elf.unwind.Cfa}),
 * and the FDE ranges as BOLT keeps them ({@link dev.splice.elf.unwind.EhFrameRanges}).
 */
package dev.splice.elf.unwind;
