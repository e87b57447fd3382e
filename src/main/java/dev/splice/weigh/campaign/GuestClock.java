package dev.splice.weigh.measure;

import dev.splice.base.BadInputException;
import dev.splice.weigh.probe.ProbeProgram;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * What the probe executable writes to stdout: its own clock ({@code rdtime}) around every window,
 * calibrated against CLOCK_MONOTONIC read at the start and end of the run (in user mode
 * {@code rdtime} returns the host TSC, not a 10 MHz timebase).
 *
 * @param ticksPerNs rdtime ticks per CLOCK_MONOTONIC nanosecond over the whole run
 * @param starts rdtime before each window's start marker
 * @param ends rdtime after each window's stop marker
 */
public record GuestClock(double ticksPerNs, long[] starts, long[] ends) {
    /** Parses the guest's output for a program with {@code windows} windows. */
    public static GuestClock parse(byte[] out, int windows, String source) {
        long expected = ProbeProgram.CLOCK_HEADER_BYTES + 16L * windows;
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
            starts[i] = b.getLong(ProbeProgram.CLOCK_HEADER_BYTES + 16 * i);
            ends[i] = b.getLong(ProbeProgram.CLOCK_HEADER_BYTES + 16 * i + 8);
        }
        return new GuestClock((double) (t1 - t0) / (m1 - m0), starts, ends);
    }

    /** The window's duration in calibrated nanoseconds. */
    public double windowNs(int window) {
        return (ends[window] - starts[window]) / ticksPerNs;
    }
}
