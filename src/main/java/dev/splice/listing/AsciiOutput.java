package dev.splice.listing;

import java.io.IOException;
import java.io.OutputStream;

/** Copies the (ASCII) characters of a StringBuilder to a stream through one reused byte buffer. */
final class AsciiOutput {
    private final OutputStream out;
    private final byte[] buffer = new byte[1 << 16];
    private int used;

    AsciiOutput(OutputStream out) {
        this.out = out;
    }

    /** Writes the builder's characters (non-ASCII as '?': listings are ASCII) and clears it. */
    void drain(StringBuilder text) throws IOException {
        int length = text.length();
        for (int i = 0; i < length; i++) {
            if (used == buffer.length) {
                flushBuffer();
            }
            char c = text.charAt(i);
            buffer[used++] = c < 0x80 ? (byte) c : (byte) '?';
        }
        text.setLength(0);
    }

    void flush() throws IOException {
        flushBuffer();
        out.flush();
    }

    private void flushBuffer() throws IOException {
        out.write(buffer, 0, used);
        used = 0;
    }
}
