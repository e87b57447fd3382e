package dev.splice.patch;

import dev.splice.isa.Decoder;
import dev.splice.isa.Opcode;
import dev.splice.listing.Assembler;
import dev.splice.listing.Assembly;
import dev.splice.listing.ListingException;
import dev.splice.patch.MovedFunction.Item;
import dev.splice.patch.PatchException.Reason;
import java.io.ByteArrayOutputStream;
import java.util.HashMap;
import java.util.Map;

/**
 * Assembles the fragments to insert and checks that they hold code only, fit the binary's target
 * and use the pc only to branch within themselves (they land anywhere in the new section). Layout
 * asks for every fragment's size and encoding for its bytes, so the results are kept by text.
 */
final class FragmentAssembler {
    private final BinaryTarget target;
    private final Decoder decoder;
    /** Assembled fragments by text: without alignment directives a fragment's bytes do not depend on its address. */
    private final Map<String, byte[]> assembled;

    FragmentAssembler(BinaryTarget target, Decoder decoder) {
        this(target, decoder, new HashMap<>());
    }

    private FragmentAssembler(BinaryTarget target, Decoder decoder, Map<String, byte[]> assembled) {
        this.target = target;
        this.decoder = decoder;
        this.assembled = assembled;
    }

    /** A copy for another attempt: it starts with what this one assembled so far, and keeps its own findings. */
    FragmentAssembler copy() {
        return new FragmentAssembler(target, decoder, new HashMap<>(assembled));
    }

    /** The bytes of {@code frag}'s insertions placed at {@code address}, checked. */
    byte[] assemble(Item frag, long address) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (Insertion insertion : frag.insertions) {
            long at = address + out.size();
            boolean aligns = insertion.fragment().contains("align");
            byte[] known = aligns ? null : assembled.get(insertion.fragment());
            if (known != null) {
                out.writeBytes(known);
                continue;
            }
            Assembly a;
            try {
                a = Assembler.assemble(insertion.fragment(), insertion.fragmentName(), at, Map.of());
            } catch (ListingException e) {
                throw new PatchException(Reason.BAD_LISTING, e.getMessage());
            }
            if (a.regions().size() != 1) {
                throw new PatchException(Reason.BAD_LISTING, insertion.fragmentName() + ": a fragment holds one region, this one has "
                        + a.regions().size());
            }
            target.require(a.target(), insertion.fragmentName());
            byte[] bytes = a.bytes();
            checkFragment(insertion, bytes, at);
            if (!aligns) {
                assembled.put(insertion.fragment(), bytes);
            }
            out.writeBytes(bytes);
        }
        return out.toByteArray();
    }

    /** A fragment may branch within itself or to its own end; it may not use the pc otherwise. */
    private void checkFragment(Insertion insertion, byte[] bytes, long at) {
        int p = 0;
        while (p < bytes.length) {
            int parcel = (bytes[p] & 0xff) | (bytes[p + 1] & 0xff) << 8;
            int size = Decoder.length(parcel);
            int bits = size == 2 ? parcel : parcel | (bytes[p + 2] & 0xff) << 16 | (bytes[p + 3] & 0xff) << 24;
            Opcode op = decoder.decode(bits, size);
            if (op == null) {
                throw new PatchException(Reason.FRAGMENT_NOT_CODE, insertion.fragmentName() + ": byte " + p + " is not an instruction of "
                        + target.source() + "; fragments hold code only");
            }
            if (op.hasBranchTarget()) {
                long t = p + op.branchOffset(bits);
                if (t < 0 || t > bytes.length) {
                    throw new PatchException(Reason.FRAGMENT_LEAVES_ITSELF, insertion.fragmentName() + ": " + op.mnemonic() + " at fragment offset " + p
                            + " leaves the fragment; fragments may branch only within themselves or to their end");
                }
            }
            if (op == Rv.AUIPC) {
                throw new PatchException(Reason.FRAGMENT_USES_PC, insertion.fragmentName() + ": auipc at fragment offset " + p
                        + " depends on where the fragment lands; fragments may not use the pc");
            }
            p += size;
        }
    }
}
