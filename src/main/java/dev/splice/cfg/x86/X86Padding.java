package dev.splice.cfg.x86;

/**
 * BOLT's check of the bytes between an x86-64 function's size and its max size
 * (BinaryContext::hasValidCodePadding): valid if they are all int3, or a mix of nops, zero bytes and
 * unconditional jumps forward to no further than the max size. Only the instructions BOLT accepts
 * there are decoded; anything else ends the padding.
 */
public final class X86Padding {
    private X86Padding() {}

    /**
     * Whether BOLT accepts the bytes after a function as padding.
     *
     * @param bytes the section's bytes
     * @param base the function's offset in them
     * @param address the function's address
     * @param size the function's size
     * @param maxSize its size with the padding (up to the next function or its section's end)
     * @return true if the padding is valid
     */
    public static boolean isValid(byte[] bytes, int base, long address, int size, int maxSize) {
        if (size == maxSize) {
            return true;
        }
        int[] offset = {size};
        // Accept a padding area that is all breakpoints; BOLT keeps the offset reached either way.
        while (offset[0] < maxSize && at(bytes, base + offset[0]) == 0xcc) {
            offset[0]++;
        }
        if (offset[0] > size && offset[0] == maxSize) {
            return true;
        }
        boolean progress = true;
        while (progress) {
            progress = skip(bytes, base, offset, maxSize, true, address)
                    || skip(bytes, base, offset, maxSize, false, address)
                    || skipZeros(bytes, base, offset, maxSize);
        }
        return offset[0] == maxSize;
    }

    private static int at(byte[] bytes, int i) {
        return i >= 0 && i < bytes.length ? bytes[i] & 0xff : -1;
    }

    /** Skips nops (or forward jumps); true if it skipped any. */
    private static boolean skip(byte[] bytes, int base, int[] offset, int maxSize, boolean nops, long address) {
        int start = offset[0];
        while (offset[0] < maxSize) {
            int at = base + offset[0];
            int length = nops ? nopLength(bytes, at) : forwardJumpLength(bytes, at, address + offset[0], address + maxSize);
            if (length <= 0) {
                break;
            }
            offset[0] += length;
        }
        return offset[0] > start;
    }

    private static boolean skipZeros(byte[] bytes, int base, int[] offset, int maxSize) {
        int start = offset[0];
        while (offset[0] < maxSize && at(bytes, base + offset[0]) == 0) {
            offset[0]++;
        }
        return offset[0] > start;
    }

    /** Length of a nop at {@code i} (0x90, or 0f 1f /0 with its ModRM operand), after prefixes; 0 if none. */
    static int nopLength(byte[] bytes, int i) {
        int p = i;
        while (p - i < 14 && isPrefix(at(bytes, p))) {
            p++;
        }
        int b = at(bytes, p);
        if (b == 0x90) {
            return at(bytes, i) == 0xf3 ? 0 : p + 1 - i; // f3 90 is pause
        }
        if (b != 0x0f || at(bytes, p + 1) != 0x1f) {
            return 0;
        }
        int modrm = at(bytes, p + 2);
        if (modrm < 0 || ((modrm >> 3) & 7) != 0) {
            return 0;
        }
        int length = p + 3 - i;
        int mod = modrm >> 6;
        int rm = modrm & 7;
        if (mod != 3 && rm == 4) {
            int sib = at(bytes, p + 3);
            if (sib < 0) {
                return 0;
            }
            length++;
            if (mod == 0 && (sib & 7) == 5) {
                length += 4;
            }
        }
        if (mod == 0 && rm == 5) {
            length += 4;
        } else if (mod == 1) {
            length += 1;
        } else if (mod == 2) {
            length += 4;
        }
        return i + length <= bytes.length ? length : 0;
    }

    private static boolean isPrefix(int b) {
        return b == 0x66 || b == 0x2e || b == 0x3e || b == 0x26 || b == 0x36 || b == 0x64 || b == 0x65;
    }

    /** Length of a jmp rel8/rel32 at {@code i} whose target lies after it and no further than {@code limit}. */
    private static int forwardJumpLength(byte[] bytes, int i, long pc, long limit) {
        int b = at(bytes, i);
        long target;
        int length;
        if (b == 0xeb && at(bytes, i + 1) >= 0) {
            length = 2;
            target = pc + 2 + (byte) bytes[i + 1];
        } else if (b == 0xe9 && i + 5 <= bytes.length) {
            length = 5;
            int rel = (bytes[i + 1] & 0xff) | (bytes[i + 2] & 0xff) << 8 | (bytes[i + 3] & 0xff) << 16 | bytes[i + 4] << 24;
            target = pc + 5 + rel;
        } else {
            return 0;
        }
        return target >= pc + length && target <= limit ? length : 0;
    }
}
