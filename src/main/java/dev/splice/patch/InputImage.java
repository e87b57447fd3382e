package dev.splice.patch;

import dev.splice.elf.ElfFile;
import dev.splice.elf.Segment;

/**
 * The input file's bytes as the program sees them: addresses mapped to file offsets through the
 * PT_LOAD segments, and the 16- and 32-bit parcels read there. Decoding reads every byte of the
 * moved functions through it, so it avoids {@code ElfFile.fileOffset}'s Optional and iterator per
 * call. Only read: attempts of a bulk rewrite share it.
 */
final class InputImage {
    private final String file;
    private final byte[] image;
    /** The PT_LOAD segments, in table order (the first match wins, as in ElfFile.fileOffset). */
    private final Segment[] loads;

    InputImage(ElfFile elf) {
        this.file = elf.name();
        this.image = elf.toBytes();
        this.loads = elf.segments().stream().filter(Segment::isLoad).toArray(Segment[]::new);
    }

    long fileOffset(long address) {
        for (Segment s : loads) {
            if (address - s.virtualAddress() >= 0 && address - s.virtualAddress() < s.fileSize()) {
                return s.offset() + (address - s.virtualAddress());
            }
        }
        throw new PatchException(PatchException.Reason.MALFORMED_INPUT, file + ": address 0x" + Long.toHexString(address) + " has no bytes in the file");
    }

    int u16(long offset) {
        return (image[(int) offset] & 0xff) | (image[(int) offset + 1] & 0xff) << 8;
    }

    long u32(long offset) {
        return u16(offset) | (long) u16(offset + 2) << 16;
    }
}
