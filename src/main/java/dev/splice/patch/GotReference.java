package dev.splice.patch;

import dev.splice.patch.PatchException.Reason;
import dev.splice.patch.RelocationIndex.Reloc;

/**
 * {@code R_RISCV_GOT_HI20}: the GOT slot holds the old entry address, where the jump to the moved
 * copy now is, so a load of a moved function's slot stays; a slot of an address inside is refused.
 */
final class GotReference implements ReferenceHandler {
    static final GotReference INSTANCE = new GotReference();

    private GotReference() {}

    @Override
    public void retarget(Reloc r, MovedFunction m, long to, References refs) {
        if (r.value() != m.function.address()) {
            throw refs.refuse(r, Reason.UNSUPPORTED_RELOCATION, "loads a GOT slot holding an address inside moved code");
        }
    }
}
