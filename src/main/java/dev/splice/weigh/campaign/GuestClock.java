package dev.splice.weigh.campaign;

import dev.splice.base.BadInputException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A guest clock file ({@code runs/RUN/*.clock}, docs/formats.md "Guest clock files"): what the probe
 * executable writes to stdout, its own clock ({@code rdtime}) around every window, calibrated
 * against CLOCK_MONOTONIC read at the start and end of the run (in user mode {@code rdtime} returns
 * the host TSC, not a 10 MHz timebase). The probe's generated code writes the file; this record
 * reads it.
 *
 * @param ticksPerNs rdtime ticks per CLOCK_MONOTONIC nanosecond over the whole run
 * @param starts rdtime before each window's start marker
 * @param ends rdtime after each window's stop marker
 */
public record GuestClock(double ticksPerNs, long[] starts, long[] ends) {
    /** Bytes of the header before the per-window readings. */
    public static final int HEADER_BYTES = 64;

    /**
     * Parses the guest's output.
     *
     * @param out the file's bytes
     * @param windows windows of the probe that wrote them
     * @param source names the file in messages
     * @return the readings
     * @throws BadInputException when the size does not fit the windows or a clock did not advance
     */
    public static GuestClock parse(byte[] out, int windows, String source) {
        long expected = HEADER_BYTES + 16L * windows;
        if (out.length != expected) {
            throw new BadInputException(source + ": the probe wrote " + out.length + " bytes, expected " + expected);
        }
        ByteBuffer b = ByteBuffer.wrap(out).order(ByteOrder.LITTLE_ENDIAN);
        long t0 = b.getLong(0);
        long m0 = b.getLong(8) * 1_000_000_000L + b.getLong(16);
        long t1 = b.getLong(32);
        long m1 = b.getLong(40) * 1_000_000_000L + b.getLong(48);
        if (m1 <= m0 || t1 <= t0) {
            throw new BadInputException(source + ": the guest clock or CLOCK_MONOTONIC did not advance");
        }
        long[] starts = new long[windows];
        long[] ends = new long[windows];
        for (int i = 0; i < windows; i++) {
            starts[i] = b.getLong(HEADER_BYTES + 16 * i);
            ends[i] = b.getLong(HEADER_BYTES + 16 * i + 8);
        }
        return new GuestClock((double) (t1 - t0) / (m1 - m0), starts, ends);
    }

    /**
     * A window's duration.
     *
     * @param window the window's index in execution order
     * @return its duration in calibrated nanoseconds
     */
    public double windowNs(int window) {
        return (ends[window] - starts[window]) / ticksPerNs;
    }
}
