package dev.splice.listing;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/** Copies the (ASCII) characters of a StringBuilder to a stream through one reused byte buffer. */
final class AsciiOutput {
    private final OutputStream out;
    private final byte[] buffer = new byte[1 << 16];
    private int used;

    AsciiOutput(OutputStream out) {
        this.out = out;
    }

    /**
     * Writes the builder's characters (listings are ASCII; other characters become '?') and
     * clears it. Callers drain every few kilobytes; the copy is two array copies, not a loop.
     */
    void drain(StringBuilder text) throws IOException {
        byte[] bytes = text.toString().getBytes(StandardCharsets.ISO_8859_1);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] < 0) {
                bytes[i] = '?';
            }
        }
        text.setLength(0);
        if (bytes.length >= buffer.length - used) {
            flushBuffer();
            out.write(bytes);
            return;
        }
        System.arraycopy(bytes, 0, buffer, used, bytes.length);
        used += bytes.length;
    }

    /** Writes bytes rendered elsewhere (ASCII already). */
    void write(byte[] bytes) throws IOException {
        flushBuffer();
        out.write(bytes);
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
