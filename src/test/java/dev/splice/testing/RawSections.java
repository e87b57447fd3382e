package dev.splice.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Test-only: the raw bytes of a named ELF64 section (llvm-objcopy refuses BOLT outputs). */
final class RawSections {
    private RawSections() {}

    static Optional<byte[]> section(Path file, String name) {
        try {
            ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
            long shoff = b.getLong(0x28);
            int entsize = b.getShort(0x3a) & 0xffff;
            int count = b.getShort(0x3c) & 0xffff;
            int strndx = b.getShort(0x3e) & 0xffff;
            long strOffset = b.getLong((int) (shoff + (long) strndx * entsize + 0x18));
            for (int i = 0; i < count; i++) {
                int h = (int) (shoff + (long) i * entsize);
                int nameOff = b.getInt(h);
                int p = (int) (strOffset + nameOff);
                int e = p;
                while (b.get(e) != 0) {
                    e++;
                }
                String n = new String(b.array(), p, e - p, StandardCharsets.ISO_8859_1);
                if (n.equals(name)) {
                    long off = b.getLong(h + 0x18);
                    long size = b.getLong(h + 0x20);
                    byte[] out = new byte[(int) size];
                    System.arraycopy(b.array(), (int) off, out, 0, (int) size);
                    return Optional.of(out);
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
