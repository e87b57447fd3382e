package dev.splice.patch;

import dev.splice.elf.ElfFile;
import java.util.List;

/** Write-back in one call: equal-length replacements first, then insertions at the original addresses. */
public final class Patcher {
    private Patcher() {}

    public static byte[] patch(ElfFile elf, List<Replacement> replacements, List<Insertion> insertions) {
        byte[] bytes = replacements.isEmpty() ? elf.toBytes() : Replacer.replace(elf, replacements);
        if (insertions.isEmpty()) {
            return bytes;
        }
        ElfFile replaced = replacements.isEmpty() ? elf : ElfFile.parse(bytes, elf.name());
        return Inserter.insert(replaced, insertions);
    }
}
