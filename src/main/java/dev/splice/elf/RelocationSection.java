package dev.splice.elf;

import java.util.List;

/**
 * A parsed SHT_RELA section. {@code target} is the section the relocations apply to (sh_info), or
 * the null section (index 0) for relocations not tied to one section (e.g. .rela.dyn). Symbol
 * indices refer to the symbol table named by the section's sh_link.
 */
public record RelocationSection(Section section, Section target, List<Relocation> relocations) {
}
