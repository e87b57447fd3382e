package dev.splice.base;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * LEB128 writing and reading ({@link ByteWriter}, {@link ByteReader}) against an independent
 * encoding of the DWARF definition on unbounded integers (BigInteger: seven bits a byte, low
 * first, the high bit saying "more"), at the boundary values where the byte count changes and
 * 64 bits end: the shortest form is written, every form up to ten bytes reads back, and numbers
 * that need more than 64 bits or end early are refused.
 */
class Leb128Properties {
    private static final BigInteger TWO_64 = BigInteger.ONE.shiftLeft(64);

    /** Around every power of two (where encodings gain a byte) and the 64-bit limits, plus any long. */
    @Provide
    Arbitrary<Long> boundaries() {
        List<Long> edges = new ArrayList<>();
        for (int k = 0; k < 64; k++) {
            for (long d = -2; d <= 2; d++) {
                edges.add((1L << k) + d);
                edges.add(-(1L << k) + d);
            }
        }
        edges.addAll(List.of(0L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1, Long.MIN_VALUE + 1));
        return Arbitraries.oneOf(Arbitraries.of(edges), Arbitraries.longs());
    }

    @Property(tries = 2000)
    void unsignedIsTheDefinitionsShortestFormAndReadsBack(@ForAll("boundaries") long v) {
        BigInteger value = new BigInteger(Long.toUnsignedString(v));
        byte[] expected = encode(value, false);
        ByteWriter w = new ByteWriter();
        w.uleb(v);
        assertArrayEquals(expected, w.toByteArray(), Long.toUnsignedString(v));
        assertEquals(value, decode(expected, false));
        ByteReader r = reader(expected);
        assertEquals(v, r.uleb());
        assertTrue(r.atEnd());
    }

    @Property(tries = 2000)
    void signedIsTheDefinitionsShortestFormAndReadsBack(@ForAll("boundaries") long v) {
        byte[] expected = encode(BigInteger.valueOf(v), true);
        ByteWriter w = new ByteWriter();
        w.sleb(v);
        assertArrayEquals(expected, w.toByteArray(), Long.toString(v));
        assertEquals(BigInteger.valueOf(v), decode(expected, true));
        ByteReader r = reader(expected);
        assertEquals(v, r.sleb());
        assertTrue(r.atEnd());
    }

    /** Padded forms (continuation bytes carrying only zero or sign bits) up to ten bytes mean the same number. */
    @Property(tries = 1000)
    void paddedFormsReadBack(@ForAll("boundaries") long v, @ForAll @IntRange(min = 1, max = 9) int padding) {
        byte[] u = pad(encode(new BigInteger(Long.toUnsignedString(v)), false), padding, false);
        if (u.length <= 10) {
            assertEquals(v, reader(u).uleb());
        }
        byte[] s = pad(encode(BigInteger.valueOf(v), true), padding, v < 0);
        if (s.length <= 10) {
            assertEquals(v, reader(s).sleb());
        }
    }

    /** Numbers of 65 to 70 bits are refused, not wrapped. */
    @Property(tries = 1000)
    void numbersBeyond64BitsAreRefused(@ForAll("boundaries") long low, @ForAll @IntRange(min = 0, max = 5) int extra) {
        BigInteger unsigned = TWO_64.shiftLeft(extra).add(new BigInteger(Long.toUnsignedString(low)).shiftRight(1));
        BadInputException u = assertThrows(BadInputException.class, () -> reader(encode(unsigned, false)).uleb());
        assertTrue(u.getMessage().contains("too big for 64 bits"), u.getMessage());
        BigInteger signed = BigInteger.ONE.shiftLeft(63 + extra).add(BigInteger.valueOf(low & Long.MAX_VALUE));
        for (BigInteger s : List.of(signed, signed.negate().subtract(BigInteger.ONE))) {
            BadInputException e = assertThrows(BadInputException.class, () -> reader(encode(s, true)).sleb());
            assertTrue(e.getMessage().contains("too big for 64 bits"), s + ": " + e.getMessage());
        }
    }

    /** An encoding cut before its last byte is refused with the offset where the number starts. */
    @Property(tries = 1000)
    void truncatedNumbersAreRefused(@ForAll("boundaries") long v) {
        for (boolean signed : new boolean[] {false, true}) {
            byte[] full = encode(signed ? BigInteger.valueOf(v) : new BigInteger(Long.toUnsignedString(v)), signed);
            byte[] cut = new byte[full.length + 2];
            System.arraycopy(full, 0, cut, 2, full.length - 1);
            ByteReader r = new ByteReader(cut, 2, cut.length - 1, "cut");
            BadInputException e = assertThrows(BadInputException.class, signed ? r::sleb : r::uleb);
            assertEquals("cut: offset 2: truncated " + (signed ? "S" : "U") + "LEB128 number", e.getMessage());
        }
    }

    private static ByteReader reader(byte[] b) {
        return new ByteReader(b, 0, b.length, "test");
    }

    /** The DWARF definition: seven bits a byte, least significant first, until the rest is 0 (or -1 with the sign bit set). */
    private static byte[] encode(BigInteger v, boolean signed) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BigInteger seven = BigInteger.valueOf(0x7f);
        while (true) {
            int slice = v.and(seven).intValue();
            v = v.shiftRight(7);
            boolean done = signed
                    ? (v.signum() == 0 && (slice & 0x40) == 0) || (v.equals(BigInteger.ONE.negate()) && (slice & 0x40) != 0)
                    : v.signum() == 0;
            out.write(done ? slice : slice | 0x80);
            if (done) {
                return out.toByteArray();
            }
        }
    }

    private static BigInteger decode(byte[] b, boolean signed) {
        BigInteger v = BigInteger.ZERO;
        for (int i = 0; i < b.length; i++) {
            v = v.add(BigInteger.valueOf(b[i] & 0x7f).shiftLeft(7 * i));
        }
        if (signed && (b[b.length - 1] & 0x40) != 0) {
            v = v.subtract(BigInteger.ONE.shiftLeft(7 * b.length));
        }
        return v;
    }

    /** {@code b} with {@code n} more bytes that add only zero (or, for negative numbers, sign) bits. */
    private static byte[] pad(byte[] b, int n, boolean negative) {
        byte[] out = Arrays.copyOf(b, b.length + n);
        out[b.length - 1] |= (byte) 0x80;
        for (int i = b.length; i < out.length; i++) {
            out[i] = (byte) (negative ? 0xff : 0x80);
        }
        out[out.length - 1] &= 0x7f;
        return out;
    }
}
