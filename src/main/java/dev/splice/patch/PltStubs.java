package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_JUMP_SLOT;

import dev.splice.base.Le;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Relocation;
import dev.splice.elf.RelocationSection;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * The PLT stubs of a dynamically linked binary by the name of the function they call. The linker
 * resolves a call to a function with a PLT entry (an imported one, or an exported one of a shared
 * library, which may be preempted) to its stub, while the relocation {@code --emit-relocs} kept
 * names the function. A stub is recognised by what it does, not by its place: a RISC-V PLT entry
 * is {@code auipc t3, %pcrel_hi(slot); ld t3, %pcrel_lo(slot)(t3); jalr t1, t3; nop}, and the slot
 * it loads is the one a {@code R_RISCV_JUMP_SLOT} relocation names, which gives its symbol.
 */
final class PltStubs {
    private static final int ENTRY_SIZE = 16;
    private static final int T3 = 28;
    private static final int T1 = 6;

    /** Stub address by function name (without a version); names with two stubs are left out. */
    private final Map<String, Long> byName;

    private PltStubs(Map<String, Long> byName) {
        this.byName = byName;
    }

    /** The stubs of {@code elf}'s {@code .plt} (none when it has no {@code .plt} or no JUMP_SLOT relocations). */
    static PltStubs read(ElfFile elf) {
        Section plt = elf.section(".plt").orElse(null);
        if (plt == null || plt.isNobits()) {
            return new PltStubs(Map.of());
        }
        Map<Long, Long> stubBySlot = new HashMap<>();
        byte[] code = elf.contents(plt);
        for (int at = 0; at + ENTRY_SIZE <= code.length; at += 4) {
            long slot = loadedSlot(code, at, plt.address() + at);
            if (slot != 0) {
                stubBySlot.put(slot, plt.address() + at);
            }
        }
        Map<String, Long> byName = new HashMap<>();
        Set<String> twice = new HashSet<>();
        for (RelocationSection rs : elf.relocations()) {
            if (!rs.section().isAllocated() || rs.section().link() == 0) {
                continue;
            }
            var symbols = elf.symbols(rs);
            for (Relocation r : rs.relocations()) {
                Long stub = stubBySlot.get(r.offset());
                if (r.type() != R_RISCV_JUMP_SLOT || stub == null || r.symbolIndex() == 0 || r.symbolIndex() >= symbols.size()) {
                    continue;
                }
                String name = symbols.get(r.symbolIndex()).name();
                if (byName.put(name, stub) != null) {
                    twice.add(name);
                }
            }
        }
        byName.keySet().removeAll(twice);
        return new PltStubs(byName);
    }

    /** The GOT slot the PLT entry at {@code at} of {@code code} (at {@code address}) jumps through, or 0 if it is none. */
    private static long loadedSlot(byte[] code, int at, long address) {
        int auipc = Le.u32(code, at);
        int ld = Le.u32(code, at + 4);
        int jalr = Le.u32(code, at + 8);
        boolean stub = auipc == ((auipc & 0xfffff000) | T3 << 7 | 0x17)
                && (ld & 0xfffff) == (T3 << 15 | 3 << 12 | T3 << 7 | 0x03)
                && jalr == (T3 << 15 | T1 << 7 | 0x67);
        return stub ? address + (auipc & 0xfffff000) + (ld >> 20) : 0;
    }

    /** The addresses of the stubs (entries of functions in other objects, or preemptible ones). */
    java.util.Collection<Long> addresses() {
        return byName.values();
    }

    /**
     * The stub that calls {@code s}, a symbol of the static symbol table named as the linker
     * names imported symbols there ({@code puts@GLIBC_2.27}), or -1 when it has none (local
     * symbols have none).
     */
    long stubOf(Symbol s) {
        if (byName.isEmpty() || s.isLocal()) {
            return -1;
        }
        String name = s.name();
        int version = name.indexOf('@');
        Long stub = byName.get(version < 0 ? name : name.substring(0, version));
        return stub == null ? -1 : stub;
    }
}
