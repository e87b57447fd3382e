/**
 * DWARF debug information, read only as far as a rewrite of moved code needs it: the line
 * programs ({@link dev.splice.elf.dwarf.LineProgram}), the DIE tree's address attributes over its
 * abbreviations ({@link dev.splice.elf.dwarf.Abbreviations}, {@link dev.splice.elf.dwarf.DieWalker}),
 * range and location lists of DWARF 4 and 5 ({@link dev.splice.elf.dwarf.AddressLists}) and
 * {@code .debug_aranges}; {@link dev.splice.elf.dwarf.DebugInfoRewriter} rewrites them all through
 * an {@link dev.splice.elf.dwarf.AddressMap} (old code address to new). See docs/elf.md, "DWARF".
 */
package dev.splice.elf.dwarf;
