package dev.splice.patch;

import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_32_PCREL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_64;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD16;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD64;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ADD8;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_ALIGN;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_CALL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_CALL_PLT;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_GOT32_PCREL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_GOT_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_JAL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_LO12_I;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_LO12_S;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_NONE;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_LO12_I;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_PCREL_LO12_S;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RELAX;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_BRANCH;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_RVC_JUMP;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SET16;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SET32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SET6;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SET8;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SUB16;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SUB32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SUB6;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SUB64;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_SUB8;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLSDESC;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLSDESC_CALL;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLSDESC_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLS_DTPMOD32;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLS_GD_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TLS_GOT_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TPREL_ADD;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TPREL_HI20;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TPREL_I;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_TPREL_S;

import dev.splice.base.Le;
import dev.splice.elf.ElfFile;
import dev.splice.elf.ElfHeader;
import dev.splice.elf.Relocation;
import dev.splice.elf.RelocationSection;
import dev.splice.elf.Section;
import dev.splice.elf.Symbol;
import dev.splice.elf.reloc.RiscVRelocations;
import dev.splice.listing.Fixup;
import dev.splice.patch.PatchException.Reason;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A user's runtime, linked from an ELF64 RISC-V relocatable object ({@code --runtime FILE.o},
 * docs/instrument.md "Runtime objects"): its code sections go after the shipped runtime in
 * {@code .splice.text}, its read-only data in {@code .splice.rodata}, its zero-initialised data
 * ({@code .bss}, {@code .sbss}, COMMON symbols, all-zero {@code .data}) in the data area after the
 * counters. Its relocations are resolved exactly (no relaxation: {@code R_RISCV_RELAX} is ignored,
 * the unrelaxed sequences stay valid; an {@code R_RISCV_ALIGN} whose nops already align as placed is
 * kept, one that would need bytes deleted is refused). Undefined symbols resolve against the
 * shipped runtime and the program; anything else (TLS, GOT-relative references, initialised
 * writable data, constructors, an unresolved name) is refused with the file, section, offset and
 * symbol. Layout offsets depend on the object only, so fragments can call its global functions
 * before the output's layout is known.
 */
final class RuntimeObject {
    /** The function the shipped {@code __splice_exit} calls first, when the object defines it. */
    static final String EXIT_FUNCTION = "__splice_user_exit";
    /** The largest section alignment honoured (the runtime's start is page-aligned). */
    private static final long MAX_ALIGNMENT = 4096;

    private enum Kind { CODE, RODATA, BSS }

    /** Where one of the object's sections goes: its kind and offset in that part. */
    private record Placed(Section section, Kind kind, long offset) {}

    private final String file;
    private final ElfFile elf;
    private final List<Symbol> symbols;
    private final Map<Integer, Placed> placed = new LinkedHashMap<>();
    /** COMMON symbols by index: their offsets in the object's zero data. */
    private final Map<Integer, Long> common = new HashMap<>();
    private final long[] size = new long[Kind.values().length];

    private RuntimeObject(String file, ElfFile elf) {
        this.file = file;
        this.elf = elf;
        this.symbols = elf.symbols();
    }

    /**
     * Reads and lays out {@code path}.
     *
     * @param path the object file
     * @return the object
     * @throws PatchException if it is no RISC-V64 relocatable object or holds what cannot be linked exactly
     */
    static RuntimeObject read(Path path) {
        ElfFile elf = ElfFile.read(path);
        RuntimeObject o = new RuntimeObject(path.toString(), elf);
        if (elf.header().type() != ElfHeader.ET_REL || elf.header().machine() != ElfHeader.EM_RISCV
                || elf.header().elfClass() != ElfHeader.ELFCLASS64) {
            throw new PatchException(Reason.UNSUPPORTED_BINARY, path + ": is not a RISC-V64 relocatable object (ELF64, ET_REL, "
                    + "EM_RISCV): give the object file gcc -c makes");
        }
        o.layout();
        o.checkRelocations();
        return o;
    }

    private PatchException refused(String why) {
        return new PatchException(Reason.UNSUPPORTED_RELOCATION, file + ": " + why);
    }

    private void layout() {
        for (Section s : elf.sections()) {
            if (!s.isAllocated() || s.name().equals(".eh_frame")) {
                continue; // debug and notes; unwind tables of the object are not linked (docs)
            }
            if ((s.flags() & Section.SHF_TLS) != 0) {
                throw refused("section " + s.name() + " is thread-local storage, which the runtime cannot have");
            }
            if (s.name().matches("\\.(init_array|fini_array|preinit_array|ctors|dtors)(\\..*)?")) {
                throw refused("section " + s.name() + " holds constructors or destructors, which nothing would run");
            }
            Kind kind;
            if (s.isExecutable()) {
                kind = Kind.CODE;
            } else if (s.isNobits()) {
                kind = Kind.BSS;
            } else if ((s.flags() & Section.SHF_WRITE) != 0) {
                if (!allZero(elf.contents(s))) {
                    throw refused("section " + s.name() + " is initialised writable data; the runtime's data area is "
                            + "zero-filled (make it const, or zero and initialise it in code)");
                }
                kind = Kind.BSS;
            } else {
                kind = Kind.RODATA;
            }
            long alignment = Math.max(1, s.alignment());
            if (alignment > MAX_ALIGNMENT) {
                throw refused("section " + s.name() + " asks for " + alignment + "-byte alignment (at most " + MAX_ALIGNMENT + ")");
            }
            long at = (size[kind.ordinal()] + alignment - 1) / alignment * alignment;
            placed.put(s.index(), new Placed(s, kind, at));
            size[kind.ordinal()] = at + s.size();
        }
        for (Symbol s : symbols) {
            if (s.sectionIndex() == Section.SHN_COMMON) {
                long alignment = Math.max(1, Math.min(s.value(), MAX_ALIGNMENT));
                long at = (size[Kind.BSS.ordinal()] + alignment - 1) / alignment * alignment;
                common.put(s.index(), at);
                size[Kind.BSS.ordinal()] = at + s.size();
            } else if (s.type() == Symbol.STT_TLS) {
                throw refused("symbol '" + s.name() + "' is thread-local, which the runtime cannot have");
            }
        }
    }

    private static boolean allZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    /** Refuses relocation types the linker does not do, before any layout. */
    private void checkRelocations() {
        for (RelocationSection rs : elf.relocations()) {
            Placed on = placed.get(rs.target().index());
            if (on == null) {
                continue; // a section that is not linked (debug, .eh_frame)
            }
            for (Relocation r : rs.relocations()) {
                if (!supported(r.type())) {
                    throw new PatchException(Reason.UNSUPPORTED_RELOCATION, where(on, r) + ": " + RiscVRelocations.name(r.type())
                            + (isGotOrTls(r.type()) ? " (GOT-relative or thread-local: the runtime has no GOT and no TLS; "
                            + "compile with -fno-pic)" : "") + " is not supported");
                }
            }
        }
    }

    private static boolean supported(int type) {
        return switch (type) {
            case R_RISCV_NONE, R_RISCV_32, R_RISCV_64, R_RISCV_BRANCH, R_RISCV_JAL, R_RISCV_CALL, R_RISCV_CALL_PLT,
                 R_RISCV_PCREL_HI20, R_RISCV_PCREL_LO12_I, R_RISCV_PCREL_LO12_S, R_RISCV_HI20, R_RISCV_LO12_I, R_RISCV_LO12_S,
                 R_RISCV_ADD8, R_RISCV_ADD16, R_RISCV_ADD32, R_RISCV_ADD64, R_RISCV_SUB8, R_RISCV_SUB16, R_RISCV_SUB32,
                 R_RISCV_SUB64, R_RISCV_SUB6, R_RISCV_SET6, R_RISCV_SET8, R_RISCV_SET16, R_RISCV_SET32, R_RISCV_32_PCREL,
                 R_RISCV_ALIGN, R_RISCV_RVC_BRANCH, R_RISCV_RVC_JUMP, R_RISCV_RELAX -> true;
            default -> false;
        };
    }

    private static boolean isGotOrTls(int type) {
        return type == R_RISCV_GOT_HI20 || type == R_RISCV_GOT32_PCREL || type >= R_RISCV_TLS_DTPMOD32 && type <= R_RISCV_TLSDESC
                || type == R_RISCV_TLS_GOT_HI20 || type == R_RISCV_TLS_GD_HI20 || type >= R_RISCV_TPREL_HI20 && type <= R_RISCV_TPREL_ADD
                || type == R_RISCV_TPREL_I || type == R_RISCV_TPREL_S || type >= R_RISCV_TLSDESC_HI20 && type <= R_RISCV_TLSDESC_CALL;
    }

    private String where(Placed on, Relocation r) {
        String symbol = r.symbolIndex() == 0 ? "" : " (symbol '" + symbols.get(r.symbolIndex()).name() + "')";
        return file + ": section " + on.section().name() + "+0x" + Long.toHexString(r.offset()) + symbol;
    }

    /** {@return the object file's name} */
    String file() {
        return file;
    }

    /** {@return the bytes of code (after the shipped runtime, at an offset aligned to {@link #codeAlignment})} */
    long codeSize() {
        return size[Kind.CODE.ordinal()];
    }

    /** {@return the number of the object's relocations} */
    long relocationCount() {
        long n = 0;
        for (RelocationSection rs : elf.relocations()) {
            n += rs.relocations().size();
        }
        return n;
    }

    /** {@return the read-only data's size} */
    long rodataSize() {
        return size[Kind.RODATA.ordinal()];
    }

    /** {@return the zero data's size} */
    long bssSize() {
        return size[Kind.BSS.ordinal()];
    }

    /** {@return the largest alignment of the object's sections} */
    long alignment() {
        long a = 8;
        for (Placed p : placed.values()) {
            a = Math.max(a, p.section().alignment());
        }
        return a;
    }

    /** {@return the global functions of the object's code, by name: their offsets from its code's start} */
    Map<String, Long> functions() {
        Map<String, Long> out = new HashMap<>();
        for (Symbol s : symbols) {
            Placed p = s.isDefinedInSection() ? placed.get(s.sectionIndex()) : null;
            if (p != null && p.kind() == Kind.CODE && !s.isLocal() && !s.name().isEmpty()
                    && (s.type() == Symbol.STT_FUNC || s.type() == Symbol.STT_NOTYPE)) {
                out.put(s.name(), p.offset() + s.value());
            }
        }
        return out;
    }

    /**
     * The object linked: its code, read-only data, and the references of its code for the output's
     * relocations.
     *
     * @param code the bytes of its code sections
     * @param rodata the bytes of its read-only data
     * @param references the placement-dependent words of its code
     */
    record Linked(byte[] code, byte[] rodata, List<RuntimeReference> references) {}

    /**
     * Links the object with its code at {@code codeAddress}, its read-only data at
     * {@code rodataAddress} and its zero data at {@code bssAddress}; {@code outside} gives the
     * value of a name the object does not define (or null).
     *
     * @param codeAddress where the code goes
     * @param rodataAddress where the read-only data goes
     * @param bssAddress where the zero data goes
     * @param outside the shipped runtime's and the program's symbols
     * @return the linked bytes
     * @throws PatchException for an unresolved name or a value that does not fit its place
     */
    Linked link(long codeAddress, long rodataAddress, long bssAddress, Function<String, Long> outside) {
        long[] base = {codeAddress, rodataAddress, bssAddress};
        byte[][] out = {new byte[(int) codeSize()], new byte[(int) rodataSize()]};
        for (Placed p : placed.values()) {
            if (p.kind() != Kind.BSS) {
                byte[] b = elf.contents(p.section());
                System.arraycopy(b, 0, out[p.kind().ordinal()], (int) p.offset(), b.length);
            }
        }
        List<RuntimeReference> references = new ArrayList<>();
        for (RelocationSection rs : elf.relocations()) {
            Placed on = placed.get(rs.target().index());
            if (on == null) {
                continue;
            }
            byte[] bytes = out[on.kind().ordinal()];
            long sectionAddress = base[on.kind().ordinal()] + on.offset();
            Map<Long, Long> hiTargets = new HashMap<>(); // auipc offset -> S + A of its PCREL_HI20
            for (Relocation r : rs.relocations()) {
                if (r.type() == R_RISCV_PCREL_HI20) {
                    hiTargets.put(r.offset(), value(r, on, base, outside));
                }
            }
            for (Relocation r : rs.relocations()) {
                apply(r, on, bytes, sectionAddress, base, outside, hiTargets, references);
            }
        }
        return new Linked(out[0], out[1], references);
    }

    /** The address of symbol {@code index}. */
    private long symbolValue(int index, Placed on, Relocation r, long[] base, Function<String, Long> outside) {
        Symbol s = symbols.get(index);
        if (s.sectionIndex() == Section.SHN_ABS) {
            return s.value();
        }
        if (s.sectionIndex() == Section.SHN_COMMON) {
            return base[Kind.BSS.ordinal()] + common.get(index);
        }
        if (s.isDefinedInSection()) {
            Placed p = placed.get(s.sectionIndex());
            if (p == null) {
                throw new PatchException(Reason.UNSUPPORTED_RELOCATION, where(on, r) + ": refers to section "
                        + elf.section(s.sectionIndex()).name() + ", which is not linked");
            }
            return base[p.kind().ordinal()] + p.offset() + s.value();
        }
        Long v = outside.apply(s.name());
        if (v == null) {
            if (s.binding() == Symbol.STB_WEAK) {
                return 0;
            }
            throw new PatchException(Reason.UNSUPPORTED_RELOCATION, where(on, r) + ": undefined symbol '" + s.name()
                    + "' is neither the runtime's nor the program's");
        }
        return v;
    }

    private long value(Relocation r, Placed on, long[] base, Function<String, Long> outside) {
        return (r.symbolIndex() == 0 ? 0 : symbolValue(r.symbolIndex(), on, r, base, outside)) + r.addend();
    }

    private void apply(Relocation r, Placed on, byte[] bytes, long sectionAddress, long[] base, Function<String, Long> outside,
                       Map<Long, Long> hiTargets, List<RuntimeReference> references) {
        int type = r.type();
        if (type == R_RISCV_NONE || type == R_RISCV_RELAX) {
            return; // no relaxation: the sequence as assembled stays valid
        }
        int at = (int) (on.offset() + r.offset());
        long pc = sectionAddress + r.offset();
        if (type == R_RISCV_ALIGN) {
            long alignment = Long.highestOneBit(r.addend()) << 1;
            if (((pc + r.addend()) & (alignment - 1)) != 0) {
                throw new PatchException(Reason.UNSUPPORTED_RELOCATION, where(on, r) + ": R_RISCV_ALIGN would need "
                        + "nops deleted (linker relaxation), which Splice does not do; compile with -mno-relax");
            }
            return; // the nops as assembled align the code that follows
        }
        long v;
        if (type == R_RISCV_PCREL_LO12_I || type == R_RISCV_PCREL_LO12_S) {
            long auipc = symbolValue(r.symbolIndex(), on, r, base, outside) + r.addend();
            Long hi = hiTargets.get(auipc - sectionAddress);
            if (hi == null) {
                throw new PatchException(Reason.UNSUPPORTED_RELOCATION, where(on, r) + ": no R_RISCV_PCREL_HI20 at its auipc");
            }
            Fixup.Kind kind = type == R_RISCV_PCREL_LO12_I ? Fixup.Kind.PCREL_LO12_I : Fixup.Kind.PCREL_LO12_S;
            encode(new Fixup(0, at, kind, null, 0, (int) (auipc - sectionAddress + on.offset()), 0, 0), bytes, sectionAddress
                    - on.offset(), hi, on, r);
            if (on.kind() == Kind.CODE) {
                references.add(new RuntimeReference(pc, type, auipc));
            }
            return;
        }
        v = value(r, on, base, outside);
        Fixup.Kind kind = switch (type) {
            case R_RISCV_64 -> Fixup.Kind.ABS64;
            case R_RISCV_32 -> Fixup.Kind.ABS32;
            case R_RISCV_BRANCH -> Fixup.Kind.BRANCH;
            case R_RISCV_JAL -> Fixup.Kind.JAL;
            case R_RISCV_RVC_BRANCH -> Fixup.Kind.RVC_BRANCH;
            case R_RISCV_RVC_JUMP -> Fixup.Kind.RVC_JUMP;
            case R_RISCV_CALL, R_RISCV_CALL_PLT -> Fixup.Kind.CALL;
            case R_RISCV_PCREL_HI20 -> Fixup.Kind.PCREL_HI20;
            case R_RISCV_HI20 -> Fixup.Kind.HI20;
            case R_RISCV_LO12_I -> Fixup.Kind.LO12_I;
            case R_RISCV_LO12_S -> Fixup.Kind.LO12_S;
            default -> null;
        };
        if (kind != null) {
            encode(new Fixup(0, at, kind, null, 0, at, 0, 0), bytes, sectionAddress - on.offset(), v, on, r);
            if (on.kind() == Kind.CODE) {
                references.add(new RuntimeReference(pc, type == R_RISCV_CALL_PLT ? R_RISCV_CALL : type, v));
            }
            return;
        }
        arithmetic(type, bytes, at, v, pc);
    }

    private void encode(Fixup f, byte[] bytes, long address, long value, Placed on, Relocation r) {
        String why = f.apply(bytes, 0, address, value);
        if (why != null) {
            throw new PatchException(Reason.OUT_OF_REACH, where(on, r) + ": " + RiscVRelocations.name(r.type()) + ": " + why);
        }
    }

    /** The data relocations: label differences (ADD/SUB), SET, 32-bit pc-relative. */
    private static void arithmetic(int type, byte[] b, int at, long v, long pc) {
        switch (type) {
            case R_RISCV_ADD8 -> b[at] += (byte) v;
            case R_RISCV_SUB8 -> b[at] -= (byte) v;
            case R_RISCV_SET8 -> b[at] = (byte) v;
            case R_RISCV_SUB6 -> b[at] = (byte) (b[at] & 0xc0 | (b[at] - v) & 0x3f);
            case R_RISCV_SET6 -> b[at] = (byte) (b[at] & 0xc0 | v & 0x3f);
            case R_RISCV_ADD16 -> put16(b, at, Le.u16(b, at) + v);
            case R_RISCV_SUB16 -> put16(b, at, Le.u16(b, at) - v);
            case R_RISCV_SET16 -> put16(b, at, v);
            case R_RISCV_ADD32 -> Le.putU32(b, at, (int) (Le.u32(b, at) + v));
            case R_RISCV_SUB32 -> Le.putU32(b, at, (int) (Le.u32(b, at) - v));
            case R_RISCV_SET32 -> Le.putU32(b, at, (int) v);
            case R_RISCV_32_PCREL -> Le.putU32(b, at, (int) (v - pc));
            case R_RISCV_ADD64 -> Le.putU64(b, at, Le.u64(b, at) + v);
            case R_RISCV_SUB64 -> Le.putU64(b, at, Le.u64(b, at) - v);
            default -> throw new AssertionError(type);
        }
    }

    private static void put16(byte[] b, int at, long v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
    }
}
