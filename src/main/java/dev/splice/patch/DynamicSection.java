package dev.splice.patch;

import static dev.splice.base.Le.le64;

import dev.splice.base.Le;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Section;
import java.util.ArrayList;
import java.util.List;

/**
 * The entries of {@code .dynamic} that hold code addresses, {@code DT_INIT} and {@code DT_FINI}
 * (the loader calls them), follow moved code. The other entries name data and tables, which do
 * not move ({@code DT_INIT_ARRAY} is the array's address; its words have relocations).
 */
final class DynamicSection {
    private static final int ENTRY_SIZE = 16;
    private static final long DT_NULL = 0;
    private static final long DT_INIT = 12;
    private static final long DT_FINI = 13;

    private DynamicSection() {}

    /** Patches of the {@code DT_INIT}/{@code DT_FINI} values that name moved code. */
    static List<Patch> retarget(ElfFile elf, MovedCode moved) {
        List<Patch> out = new ArrayList<>();
        for (Section s : elf.sections()) {
            if (s.type() != Section.SHT_DYNAMIC || s.isNobits()) {
                continue;
            }
            byte[] b = elf.contents(s);
            for (int at = 0; at + ENTRY_SIZE <= b.length; at += ENTRY_SIZE) {
                long tag = Le.u64(b, at);
                if (tag == DT_NULL) {
                    break;
                }
                long value = Le.u64(b, at + 8);
                if ((tag == DT_INIT || tag == DT_FINI) && moved.find(value) != null) {
                    out.add(new Patch(s.address() + at + 8, le64(moved.mapBranchTarget(value))));
                }
            }
        }
        return out;
    }
}
