package dev.splice.profile;

import dev.splice.elf.ElfFile;
import dev.splice.elf.unwind.EhFrameRanges;
import java.util.Set;

/** For tests of other packages: the functions perf2bolt builds no CFG for ({@link FunctionDiscovery} is internal). */
public final class NotSimpleFunctions {
    private NotSimpleFunctions() {}

    /**
     * The addresses of the functions perf2bolt-22 finds not simple in a binary.
     *
     * @param elf the binary
     * @return their start addresses
     */
    public static Set<Long> of(ElfFile elf) {
        return FunctionDiscovery.discover(elf, EhFrameRanges.of(elf)).notSimple();
    }
}
