package dev.splice.elf;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Builds a minimal static RISC-V64 Linux executable from scratch: one read+execute PT_LOAD for
 * code ({@code .text}) and one read+write PT_LOAD for data ({@code .data}, optionally followed by
 * zero-filled {@code .bss}). Section headers (with {@code .shstrtab}) are written so that objdump
 * and readelf show the code. No interpreter, no dynamic section: the kernel (or qemu-riscv64)
 * jumps straight to {@code entry}. The output is a pure function of the inputs.
 *
 * <p>{@link ElfEditor} edits existing files; this class exists because there was nothing to start
 * a fresh executable from.
 */
public final class ExecutableBuilder {
    /** RVC + double-float ABI, as GNU ld marks rv64gc executables. */
    private static final int FLAGS = ElfHeader.EF_RISCV_RVC | ElfHeader.EF_RISCV_FLOAT_ABI_DOUBLE;
    private static final long PAGE = ElfEditor.PAGE_SIZE;
    private static final int EHDR = ElfHeader.SIZE;
    private static final int PHDR = Segment.HEADER_SIZE;
    private static final int SHDR = Section.HEADER_SIZE;

    private ExecutableBuilder() {}

    /**
     * The executable's bytes.
     *
     * @param entry entry address (inside the code)
     * @param textAddress address of the code; must not be 0 and both segments must not overlap
     * @param text the code bytes
     * @param dataAddress address of the data, a multiple of the page size above the code
     * @param data the initialised data bytes
     * @param bssSize zero-filled bytes after the data
     * @return the file's bytes
     */
    public static byte[] build(long entry, long textAddress, byte[] text, long dataAddress, byte[] data, long bssSize) {
        if (textAddress <= 0 || text.length == 0) {
            throw new IllegalArgumentException("code address must be positive and the code non-empty");
        }
        if (dataAddress % PAGE != 0 || dataAddress < textAddress + text.length + PAGE) {
            throw new IllegalArgumentException("data must start on a page at least one page above the code");
        }
        if (entry < textAddress || entry >= textAddress + text.length) {
            throw new IllegalArgumentException("entry outside the code");
        }
        if (bssSize < 0) {
            throw new IllegalArgumentException("negative bss size");
        }
        int phnum = 2;
        long headersEnd = EHDR + (long) PHDR * phnum;
        long textOffset = align(headersEnd, PAGE) + Math.floorMod(textAddress, PAGE);
        long dataOffset = align(textOffset + text.length, PAGE);
        byte[] shstrtab = "\0.text\0.data\0.bss\0.shstrtab\0".getBytes(StandardCharsets.US_ASCII);
        long shstrOffset = dataOffset + data.length;
        long shoff = align(shstrOffset + shstrtab.length, 8);
        int shnum = bssSize > 0 ? 5 : 4;
        long size = shoff + (long) SHDR * shnum;
        if (size > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("executable too large");
        }
        ByteBuffer b = ByteBuffer.allocate((int) size).order(ByteOrder.LITTLE_ENDIAN);
        // ELF header
        b.put(new byte[] {0x7f, 'E', 'L', 'F', ElfHeader.ELFCLASS64, ElfHeader.ELFDATA2LSB, ElfHeader.EV_CURRENT, 0});
        b.position(16);
        b.putShort((short) ElfHeader.ET_EXEC).putShort((short) ElfHeader.EM_RISCV).putInt(ElfHeader.EV_CURRENT)
                .putLong(entry).putLong(EHDR).putLong(shoff).putInt(FLAGS)
                .putShort((short) EHDR).putShort((short) PHDR).putShort((short) phnum)
                .putShort((short) SHDR).putShort((short) shnum).putShort((short) (shnum - 1));
        // Program headers: the text segment maps the file from offset 0 (headers included), as ld does.
        long textSegOffset = 0;
        long textSegAddress = textAddress - textOffset;
        if (textSegAddress < 0 || Math.floorMod(textSegAddress, PAGE) != 0) {
            throw new IllegalArgumentException("code address too low for the headers");
        }
        programHeader(b, Segment.PF_R | Segment.PF_X, textSegOffset, textSegAddress, textOffset + text.length,
                textOffset + text.length);
        programHeader(b, Segment.PF_R | Segment.PF_W, dataOffset, dataAddress, data.length, data.length + bssSize);
        b.position((int) textOffset);
        b.put(text);
        b.position((int) dataOffset);
        b.put(data);
        b.put(shstrtab);
        b.position((int) shoff);
        b.put(new byte[SHDR]);
        long code = Section.SHF_ALLOC | Section.SHF_EXECINSTR;
        long writable = Section.SHF_WRITE | Section.SHF_ALLOC;
        sectionHeader(b, 1, Section.SHT_PROGBITS, code, textAddress, textOffset, text.length, 4);
        sectionHeader(b, 7, Section.SHT_PROGBITS, writable, dataAddress, dataOffset, data.length, 64);
        if (bssSize > 0) {
            sectionHeader(b, 13, Section.SHT_NOBITS, writable, dataAddress + data.length, dataOffset + data.length,
                    bssSize, 64);
        }
        sectionHeader(b, 18, Section.SHT_STRTAB, 0, 0, shstrOffset, shstrtab.length, 1);
        return b.array();
    }

    private static void programHeader(ByteBuffer b, int flags, long offset, long address, long fileSize, long memSize) {
        b.putInt(Segment.PT_LOAD).putInt(flags).putLong(offset).putLong(address).putLong(address).putLong(fileSize)
                .putLong(memSize).putLong(PAGE);
    }

    private static void sectionHeader(ByteBuffer b, int name, int type, long flags, long address, long offset,
            long size, long alignment) {
        b.putInt(name).putInt(type).putLong(flags).putLong(address).putLong(offset).putLong(size).putInt(0).putInt(0)
                .putLong(alignment).putLong(0);
    }

    private static long align(long value, long alignment) {
        return (value + alignment - 1) / alignment * alignment;
    }
}
