package dev.splice.bat;

import dev.splice.base.BadInputException;
import dev.splice.base.ByteReader;
import dev.splice.base.ByteWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads and writes the `.note.bolt_bat` format of LLVM BOLT 22 (see docs/bat.md). Layout of the
 * descriptor: the hot function table, then the cold fragment table. Output addresses are
 * delta-encoded across both tables (each function address and each entry's output address relative
 * to the previous one); input offsets (with the branch bit in bit 0) are SLEB128 deltas within a
 * fragment; the leading entries whose input offset equals output offset (+ skew for cold fragments)
 * store only a branch bit in a bitmap.
 *
 * <p>Decoding never allocates more than the input's size warrants: every count is checked against
 * the bytes left before anything is sized by it.
 */
final class BatCodec {
    private BatCodec() {}

    private static final int HOT_FUNCTION_MIN_BYTES = 1 + 8 + 1 + 1 + 1 + 1;
    private static final int COLD_FRAGMENT_MIN_BYTES = 1 + 1 + 1 + 1 + 1;

    static BatTables decodeNote(byte[] note, String source) {
        ByteReader r = new ByteReader(note, 0, note.length, source);
        if (note.length < 12) {
            throw r.error(0, "note too short for a note header (" + note.length + " bytes)");
        }
        long nameSize = r.u32() & 0xffffffffL;
        long descSize = r.u32() & 0xffffffffL;
        int type = r.u32();
        if (type != BatTables.NT_BOLT_BAT) {
            throw r.error(8, "note type " + Integer.toUnsignedString(type) + " is not NT_BOLT_BAT (1)");
        }
        long nameEnd = 12 + ((nameSize + 3) & ~3L);
        if (nameEnd > note.length || 12 + nameSize > note.length) {
            throw r.error(0, "note name size " + nameSize + " runs past the end (" + note.length + " bytes)");
        }
        String name = new String(note, 12, (int) Math.min(nameSize, 4), StandardCharsets.ISO_8859_1);
        if (!name.equals(BatTables.NOTE_OWNER)) {
            throw r.error(12, "note owner is not BOLT");
        }
        if (nameEnd + descSize > note.length) {
            throw r.error(4, "note descriptor size " + descSize + " runs past the end (" + note.length + " bytes)");
        }
        return decodeDescriptor(note, (int) nameEnd, (int) (nameEnd + descSize), source);
    }

    static BatTables decodeDescriptor(byte[] bytes, int start, int end, String source) {
        ByteReader r = new ByteReader(bytes, start, end, source);
        long[] prevAddress = {0};
        List<BatFunction> hot = decodeHot(r, prevAddress);
        List<BatColdFragment> cold = decodeCold(r, prevAddress, hot);
        if (!r.atEnd()) {
            throw r.error(r.position(), (end - r.position()) + " trailing bytes after the cold fragment table");
        }
        return new BatTables(hot, cold);
    }

    private static int count(ByteReader r, int minBytesEach, String what) {
        int at = r.position();
        long n = r.uleb();
        // Divided, not multiplied: a ULEB128 count near 2^63 must not overflow past the check.
        if (n < 0 || n > r.remaining() / minBytesEach) {
            throw r.error(at, what + " " + Long.toUnsignedString(n) + " exceeds what the remaining "
                    + r.remaining() + " bytes can hold");
        }
        return (int) n;
    }

    private static List<BatFunction> decodeHot(ByteReader r, long[] prevAddress) {
        int n = count(r, HOT_FUNCTION_MIN_BYTES, "hot function count");
        List<BatFunction> functions = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            long address = prevAddress[0] + r.uleb();
            prevAddress[0] = address;
            long hash = r.u64();
            long blocks = r.uleb();
            int secondaryCount = count(r, 1, "secondary entry point count");
            BatMap map = decodeMap(r, address, 0, prevAddress);
            List<Long> secondary = new ArrayList<>(secondaryCount);
            long offset = 0;
            for (int k = 0; k < secondaryCount; k++) {
                offset = (offset + r.uleb()) & 0xffffffffL;
                secondary.add(offset);
            }
            functions.add(new BatFunction(address, hash, blocks, map, secondary));
        }
        return functions;
    }

    private static List<BatColdFragment> decodeCold(ByteReader r, long[] prevAddress, List<BatFunction> hot) {
        int n = count(r, COLD_FRAGMENT_MIN_BYTES, "cold fragment count");
        List<BatColdFragment> fragments = new ArrayList<>(n);
        long hotIndex = 0;
        for (int i = 0; i < n; i++) {
            long address = prevAddress[0] + r.uleb();
            prevAddress[0] = address;
            int at = r.position();
            hotIndex += r.uleb();
            if (hotIndex < 0 || hotIndex >= hot.size()) {
                throw r.error(at, "cold fragment at 0x" + Long.toHexString(address) + " names hot function index "
                        + Long.toUnsignedString(hotIndex) + " of " + hot.size());
            }
            at = r.position();
            long skew = r.uleb();
            if (skew < 0 || skew > 0x7fffffffL) {
                throw r.error(at, "cold fragment input skew " + Long.toUnsignedString(skew) + " out of range");
            }
            BatMap map = decodeMap(r, address, skew, prevAddress);
            fragments.add(new BatColdFragment(address, (int) hotIndex, hot.get((int) hotIndex).address(), map));
        }
        return fragments;
    }

    private static BatMap decodeMap(ByteReader r, long address, long skew, long[] prevAddress) {
        int n = count(r, 1, "entry count");
        int at = r.position();
        long equal = r.uleb();
        if (equal < 0 || equal > 8L * r.remaining()) {
            throw r.error(at, "equal-offset count " + Long.toUnsignedString(equal) + " exceeds the remaining bytes");
        }
        byte[] bitmap = r.bytes((int) ((equal + 7) / 8));
        int[] out = new int[n];
        int[] in = new int[n];
        boolean[] branch = new boolean[n];
        long[] hashes = new long[n];
        long[] indices = new long[n];
        long input = 0;
        long blockIndex = 0;
        for (int j = 0; j < n; j++) {
            at = r.position();
            long outputAddress = prevAddress[0] + r.uleb();
            prevAddress[0] = outputAddress;
            long outputOffset = outputAddress - address;
            if (outputOffset < 0 || outputOffset > 0xffffffffL) {
                throw r.error(at, "entry output offset 0x" + Long.toHexString(outputOffset)
                        + " does not fit in 32 bits (function at 0x" + Long.toHexString(address) + ")");
            }
            if (j < equal) {
                int bit = (bitmap[j >>> 3] >>> (j & 7)) & 1;
                input = ((outputOffset + skew) << 1) | bit;
            } else {
                input += r.sleb();
            }
            if (input < 0 || input > 0xffffffffL) {
                throw r.error(at, "entry input offset out of 32-bit range (function at 0x" + Long.toHexString(address) + ")");
            }
            out[j] = (int) outputOffset;
            in[j] = (int) (input >>> 1);
            branch[j] = (input & 1) != 0;
            if (!branch[j]) {
                hashes[j] = r.u64();
                blockIndex += r.uleb();
                indices[j] = blockIndex;
            }
        }
        return new BatMap(out, in, branch, hashes, indices);
    }

    static byte[] encodeDescriptor(BatTables tables) {
        ByteWriter w = new ByteWriter();
        long prevAddress = 0;
        w.uleb(tables.functions().size());
        for (BatFunction f : tables.functions()) {
            w.uleb(f.address() - prevAddress);
            prevAddress = f.address();
            w.u64(f.hash());
            w.uleb(f.blockCount());
            w.uleb(f.secondaryEntryPoints().size());
            prevAddress = encodeMap(w, f.map(), f.address(), 0, prevAddress);
            long prevOffset = 0;
            for (long offset : f.secondaryEntryPoints()) {
                w.uleb((offset - prevOffset) & 0xffffffffL);
                prevOffset = offset;
            }
        }
        w.uleb(tables.coldFragments().size());
        long prevIndex = 0;
        for (BatColdFragment c : tables.coldFragments()) {
            w.uleb(c.address() - prevAddress);
            prevAddress = c.address();
            w.uleb(c.parentIndex() - prevIndex);
            prevIndex = c.parentIndex();
            long skew = c.map().size() == 0 ? 0 : c.map().inputOffset(0);
            w.uleb(skew);
            prevAddress = encodeMap(w, c.map(), c.address(), skew, prevAddress);
        }
        return w.toByteArray();
    }

    private static long encodeMap(ByteWriter w, BatMap map, long address, long skew, long prevAddress) {
        int n = map.size();
        w.uleb(n);
        int equal = 0;
        while (equal < n && map.outputOffset(equal) == ((map.inputOffset(equal) - skew) & 0xffffffffL)) {
            equal++;
        }
        w.uleb(equal);
        if (equal > 0) {
            byte[] bitmap = new byte[(equal + 7) / 8];
            for (int j = 0; j < equal; j++) {
                if (map.isBranch(j)) {
                    bitmap[j >>> 3] |= (byte) (1 << (j & 7));
                }
            }
            w.bytes(bitmap);
        }
        long prevInput = 0;
        long prevIndex = 0;
        for (int j = 0; j < n; j++) {
            long outputAddress = address + map.outputOffset(j);
            w.uleb(outputAddress - prevAddress);
            prevAddress = outputAddress;
            long input = map.inputOffset(j) << 1 | (map.isBranch(j) ? 1 : 0);
            if (j >= equal) {
                w.sleb(input - prevInput);
            }
            prevInput = input;
            if (!map.isBranch(j)) {
                w.u64(map.blockHash(j));
                w.uleb(map.blockIndex(j) - prevIndex);
                prevIndex = map.blockIndex(j);
            }
        }
        return prevAddress;
    }

    static byte[] encodeNote(byte[] descriptor) {
        ByteWriter w = new ByteWriter();
        w.u32(BatTables.NOTE_OWNER.length() + 1);
        w.u32(descriptor.length);
        w.u32(BatTables.NT_BOLT_BAT);
        w.bytes((BatTables.NOTE_OWNER + "\0").getBytes(StandardCharsets.ISO_8859_1));
        w.padTo(4);
        w.bytes(descriptor);
        w.padTo(4);
        return w.toByteArray();
    }

    static BadInputException bad(String message) {
        return new BadInputException(message);
    }
}
