package dev.splice.patch;

import dev.splice.elf.ElfEditor;
import dev.splice.elf.ElfFile;
import dev.splice.elf.Function;
import dev.splice.elf.Section;
import dev.splice.listing.Assembler;
import dev.splice.listing.Assembly;
import dev.splice.listing.ListingException;
import dev.splice.listing.Region;
import dev.splice.patch.PatchException.Reason;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Equal-length replacement: each function's bytes are overwritten in place by its assembled
 * listing; every other byte stays, except the GNU build-id, which becomes
 * SHA-256(old id || for each changed function in address order: address, new bytes). A replacement
 * equal to the original changes nothing, not even the build-id.
 */
final class Replacer {
    private Replacer() {}

    /** The function a name (or 0xADDRESS) denotes; refuses unknown and ambiguous names. */
    static Function function(ElfFile elf, String name) {
        List<Function> found = new ArrayList<>();
        Long address = null;
        if (name.startsWith("0x") || name.startsWith("0X")) {
            try {
                address = Long.parseUnsignedLong(name.substring(2), 16);
            } catch (NumberFormatException e) {
                throw new PatchException(Reason.NO_SUCH_FUNCTION, "bad function address '" + name + "'");
            }
        }
        for (Function f : elf.functions()) {
            if (address != null ? f.address() == address : f.name().equals(name)) {
                found.add(f);
            }
        }
        if (found.isEmpty()) {
            throw new PatchException(Reason.NO_SUCH_FUNCTION, elf.name() + ": no function " + (address != null ? "starts at " : "named ") + "'" + name + "'");
        }
        if (found.size() > 1) {
            StringBuilder where = new StringBuilder();
            for (Function f : found) {
                where.append(where.length() == 0 ? "" : ", ").append("0x").append(Long.toHexString(f.address()));
            }
            throw new PatchException(Reason.AMBIGUOUS_FUNCTION, elf.name() + ": function name '" + name + "' is ambiguous (at " + where
                    + "); name it by its address instead");
        }
        Function f = found.get(0);
        Section s = f.section();
        if (s == null || !s.isExecutable() || s.isNobits() || f.size() <= 0
                || f.address() - s.address() < 0 || f.endAddress() - s.address() > s.size()) {
            throw new PatchException(Reason.NOT_CODE, elf.name() + ": function '" + f.name() + "' at 0x" + Long.toHexString(f.address())
                    + " is not code with contents inside an executable section");
        }
        return f;
    }

    /** Assembles a listing for one function at the function's address, checking target and address. */
    static byte[] assemble(ElfFile elf, Function f, Replacement r, BinaryTarget target) {
        Assembly assembly;
        try {
            assembly = Assembler.assemble(r.listing(), r.listingName());
            if (assembly.regions().size() != 1) {
                throw new PatchException(Reason.BAD_LISTING, r.listingName() + ": a replacement listing holds one region, this one has "
                        + assembly.regions().size());
            }
            Region region = assembly.regions().get(0);
            if (region.kind() == Region.Kind.RAW && region.address() == 0 && f.address() != 0) {
                assembly = Assembler.assemble(r.listing(), r.listingName(), f.address(), Map.of());
            } else if (region.address() != f.address()) {
                throw new PatchException(Reason.BAD_LISTING, r.listingName() + ": the listing is at 0x" + Long.toHexString(region.address())
                        + " but function '" + f.name() + "' starts at 0x" + Long.toHexString(f.address()));
            }
        } catch (ListingException e) {
            throw new PatchException(Reason.BAD_LISTING, e.getMessage());
        }
        target.require(assembly.target(), r.listingName());
        byte[] bytes = assembly.bytes();
        if (bytes.length != f.size()) {
            throw new PatchException(Reason.LENGTH_CHANGED, r.listingName() + ": assembles to " + bytes.length + " bytes but function '" + f.name()
                    + "' at 0x" + Long.toHexString(f.address()) + " has " + f.size()
                    + " bytes; replacement must keep the length (use --insert to add instructions)");
        }
        return bytes;
    }

    /** The binary with the replacements applied (the input bytes when nothing changes). */
    static byte[] replace(ElfFile elf, List<Replacement> replacements) {
        BinaryTarget target = BinaryTarget.of(elf);
        record Change(Function function, byte[] bytes) {}
        List<Change> changes = new ArrayList<>();
        for (Replacement r : replacements) {
            Function f = function(elf, r.function());
            for (Change c : changes) {
                if (c.function.address() == f.address()) {
                    throw new PatchException(Reason.REPLACED_TWICE, "function '" + f.name() + "' is replaced twice (" + r.listingName() + ")");
                }
            }
            changes.add(new Change(f, assemble(elf, f, r, target)));
        }
        changes.sort(Comparator.comparingLong(c -> c.function.address()));
        ElfEditor editor = elf.edit();
        ByteArrayOutputStream content = new ByteArrayOutputStream();
        boolean changed = false;
        byte[] original = elf.toBytes();
        for (Change c : changes) {
            Section s = c.function.section();
            long offset = s.offset() + (c.function.address() - s.address());
            byte[] old = Arrays.copyOfRange(original, (int) offset, (int) offset + c.bytes.length);
            if (Arrays.equals(old, c.bytes)) {
                continue;
            }
            changed = true;
            editor.patch(offset, c.bytes);
            content.writeBytes(longBytes(c.function.address()));
            content.writeBytes(c.bytes);
        }
        if (!changed) {
            return elf.toBytes();
        }
        elf.buildId().ifPresent(id -> editor.setBuildId(BuildIds.derive(id, content.toByteArray())));
        return editor.toBytes();
    }

    static byte[] longBytes(long v) {
        byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (8 * i));
        }
        return b;
    }
}
