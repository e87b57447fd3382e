package dev.splice.patch;

import static dev.splice.base.Le.le64;
import static dev.splice.elf.reloc.RiscVRelocations.R_RISCV_JUMP_SLOT;

import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;

/**
 * A dynamic relocation whose value ({@code S + A}) is moved code: {@code R_RISCV_RELATIVE} and
 * {@code R_RISCV_IRELATIVE} (no symbol: the addend is the address), {@code R_RISCV_64} and
 * {@code R_RISCV_JUMP_SLOT} (against a {@code .dynsym} symbol, which {@link DynamicSymbols} moves).
 * The addend becomes the new address minus the symbol's new value; the loader ignores the addend
 * of a PLT slot it binds lazily, so a JUMP_SLOT must keep addend 0. The word at {@code r_offset}
 * gets the new address too when it holds the old one and no static relocation there rewrote it
 * already (the loader overwrites it anyway; the linker wrote the value or 0).
 */
final class DynamicRelocationReference implements ReferenceHandler {
    static final DynamicRelocationReference INSTANCE = new DynamicRelocationReference();

    private DynamicRelocationReference() {}

    @Override
    public void retarget(Reloc r, MovedFunction m, long to, References refs) {
        long symbol = r.relocation().symbolIndex() == 0 ? 0 : DynamicSymbols.newValue(refs.moved(), r.symbolValue());
        long addend = to - symbol;
        if (r.type() == R_RISCV_JUMP_SLOT && addend != 0) {
            throw refs.refuse(r, Reason.UNSUPPORTED_RELOCATION, "binds a PLT slot to moved code other than its symbol's new value");
        }
        if (addend != r.relocation().addend()) {
            refs.patch(refs.in().dynamicRelocations().entryAddress(r) + DynamicRelocations.ADDEND_OFFSET, le64(addend));
        }
        if (r.target().index() != 0 && !r.target().isNobits() && refs.in().relocations().at(r.offset()).isEmpty()
                && r.offset() + 8 <= r.target().address() + r.target().size() && refs.u64At(r.offset(), r) == r.value()) {
            refs.patch(r.offset(), le64(to));
        }
    }
}
