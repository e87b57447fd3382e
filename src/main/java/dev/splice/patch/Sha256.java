package dev.splice.patch;

/**
 * SHA-256 (FIPS 180-4) with plain int arithmetic, for the build-id of rewritten binaries. The
 * JDK's MessageDigest gives the same digest, but in a short run with C1 only it costs about
 * 0.1 s of CPU (security providers to load, byte-array VarHandles in its block function); this
 * costs a few milliseconds. BuildIdsProperties checks it against MessageDigest.
 */
final class Sha256 {
    private static final int[] K = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
        0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
        0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
        0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
        0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
        0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
        0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
    };

    private final int[] h = {
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    };
    private final int[] w = new int[64];
    private final byte[] block = new byte[64];
    private int inBlock;
    private long length;

    void update(byte[] data) {
        update(data, 0, data.length);
    }

    void update(byte[] data, int from, int count) {
        length += count;
        int p = from;
        int end = from + count;
        if (inBlock > 0) {
            int n = Math.min(64 - inBlock, end - p);
            System.arraycopy(data, p, block, inBlock, n);
            inBlock += n;
            p += n;
            if (inBlock < 64) {
                return;
            }
            compress(block, 0);
            inBlock = 0;
        }
        for (; end - p >= 64; p += 64) {
            compress(data, p);
        }
        System.arraycopy(data, p, block, 0, end - p);
        inBlock = end - p;
    }

    /** The digest (32 bytes); the object is spent afterwards. */
    byte[] digest() {
        long bits = length * 8;
        byte[] pad = new byte[(inBlock < 56 ? 56 : 120) - inBlock + 8];
        pad[0] = (byte) 0x80;
        for (int i = 0; i < 8; i++) {
            pad[pad.length - 1 - i] = (byte) (bits >>> (8 * i));
        }
        update(pad);
        byte[] out = new byte[32];
        for (int i = 0; i < 8; i++) {
            out[4 * i] = (byte) (h[i] >>> 24);
            out[4 * i + 1] = (byte) (h[i] >>> 16);
            out[4 * i + 2] = (byte) (h[i] >>> 8);
            out[4 * i + 3] = (byte) h[i];
        }
        return out;
    }

    private void compress(byte[] b, int at) {
        int[] w = this.w;
        for (int i = 0; i < 16; i++) {
            int q = at + 4 * i;
            w[i] = b[q] << 24 | (b[q + 1] & 0xff) << 16 | (b[q + 2] & 0xff) << 8 | (b[q + 3] & 0xff);
        }
        for (int i = 16; i < 64; i++) {
            int x = w[i - 15];
            int y = w[i - 2];
            int s0 = Integer.rotateRight(x, 7) ^ Integer.rotateRight(x, 18) ^ (x >>> 3);
            int s1 = Integer.rotateRight(y, 17) ^ Integer.rotateRight(y, 19) ^ (y >>> 10);
            w[i] = w[i - 16] + s0 + w[i - 7] + s1;
        }
        int a = h[0];
        int bb = h[1];
        int c = h[2];
        int d = h[3];
        int e = h[4];
        int f = h[5];
        int g = h[6];
        int hh = h[7];
        for (int i = 0; i < 64; i++) {
            int s1 = Integer.rotateRight(e, 6) ^ Integer.rotateRight(e, 11) ^ Integer.rotateRight(e, 25);
            int ch = (e & f) ^ (~e & g);
            int t1 = hh + s1 + ch + K[i] + w[i];
            int s0 = Integer.rotateRight(a, 2) ^ Integer.rotateRight(a, 13) ^ Integer.rotateRight(a, 22);
            int maj = (a & bb) ^ (a & c) ^ (bb & c);
            int t2 = s0 + maj;
            hh = g;
            g = f;
            f = e;
            e = d + t1;
            d = c;
            c = bb;
            bb = a;
            a = t1 + t2;
        }
        h[0] += a;
        h[1] += bb;
        h[2] += c;
        h[3] += d;
        h[4] += e;
        h[5] += f;
        h[6] += g;
        h[7] += hh;
    }
}
