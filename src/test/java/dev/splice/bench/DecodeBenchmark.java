package dev.splice.bench;

import dev.splice.isa.Decoder;
import dev.splice.isa.Extension;
import dev.splice.isa.Isa;
import dev.splice.isa.Opcode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Decode alone: decodes every instruction of a code blob (the .text of a real program, given by
 * -p code=FILE, or a synthetic mix of table rows) with {@link Decoder#decodeAll}, which fills a
 * caller-provided array with packed results and allocates nothing. The score is per instruction
 * (ops = instructions): instructions decoded per second on one thread.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class DecodeBenchmark {
    /** A raw code file (e.g. objcopy -O binary --only-section=.text), or "synthetic". */
    @Param("synthetic")
    public String code;

    private byte[] bytes;
    private Decoder decoder;
    private int[] packed;

    @Setup(Level.Trial)
    public void setUp() throws IOException {
        decoder = Isa.rv64().decoder(Extension.all());
        bytes = code.equals("synthetic") ? synthetic(4 << 20) : Files.readAllBytes(Path.of(code));
        packed = new int[bytes.length / 2 + 1];
    }

    /** 4 MiB of valid instructions drawn from the table, 16- and 32-bit mixed like compiled code. */
    private static byte[] synthetic(int size) {
        var ops = Isa.rv64().opcodes();
        SplittableRandom rnd = new SplittableRandom(42);
        byte[] out = new byte[size];
        int pos = 0;
        while (pos + 4 <= size) {
            Opcode op = ops.get(rnd.nextInt(ops.size()));
            int w = op.match() | (rnd.nextInt() & ~op.mask());
            out[pos] = (byte) w;
            out[pos + 1] = (byte) (w >>> 8);
            if (op.size() == 4) {
                out[pos + 2] = (byte) (w >>> 16);
                out[pos + 3] = (byte) (w >>> 24);
            }
            pos += op.size();
        }
        return out;
    }

    /** Decodes the whole blob once; returns the number of items (valid instructions or not). */
    private int walk() {
        return decoder.decodeAll(bytes, 0, bytes.length, packed);
    }

    /** The same walk with the length decoding only: the floor that decode is measured against. */
    private int walkLengths() {
        byte[] b = bytes;
        int n = 0;
        int pos = 0;
        int end = b.length - 1;
        int h = 0;
        while (pos < end) {
            int parcel = (b[pos] & 0xff) | (b[pos + 1] & 0xff) << 8;
            int len = Decoder.length(parcel);
            if (len == 4 && pos + 4 <= b.length) {
                h += parcel | (b[pos + 2] & 0xff) << 16 | (b[pos + 3] & 0xff) << 24;
            } else {
                h += parcel;
                len = len > 0 ? len : 2;
            }
            n++;
            pos += len;
        }
        return n + (h & 1);
    }

    /** Instructions decoded per second (one invocation decodes the whole blob). */
    @Benchmark
    public void decode(Blackhole bh, InstructionCounter counter) {
        int n = walk();
        bh.consume(packed[n - 1]);
        counter.instructions += n;
    }

    /** Counts decoded instructions so the score can be reported per instruction. */
    @State(Scope.Thread)
    @org.openjdk.jmh.annotations.AuxCounters(org.openjdk.jmh.annotations.AuxCounters.Type.OPERATIONS)
    public static class InstructionCounter {
        public long instructions;

        @Setup(Level.Iteration)
        public void reset() {
            instructions = 0;
        }
    }

    /**
     * With "--cpu FILE|synthetic": decodes the blob repeatedly and prints instructions per second of
     * this thread's CPU time, a figure that time slicing on a shared machine does not dilute (JMH
     * measures wall time). Otherwise runs JMH with the given arguments.
     */
    public static void main(String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--cpu")) {
            DecodeBenchmark b = new DecodeBenchmark();
            b.code = args[1];
            b.setUp();
            var threads = java.lang.management.ManagementFactory.getThreadMXBean();
            double[] rates = new double[10];
            double bestWalk = 0;
            long sink = 0;
            for (int round = 0; round < rates.length; round++) {
                long t0 = threads.getCurrentThreadCpuTime();
                long n = 0;
                while (threads.getCurrentThreadCpuTime() - t0 < 300_000_000L) {
                    n += b.walk();
                }
                rates[round] = n * 1e9 / (threads.getCurrentThreadCpuTime() - t0);
                t0 = threads.getCurrentThreadCpuTime();
                n = 0;
                while (threads.getCurrentThreadCpuTime() - t0 < 300_000_000L) {
                    n += b.walkLengths();
                }
                bestWalk = Math.max(bestWalk, n * 1e9 / (threads.getCurrentThreadCpuTime() - t0));
                sink += n;
            }
            java.util.Arrays.sort(rates);
            double best = rates[rates.length - 1];
            System.out.printf("decode (%s, %d instructions): best %.0f, median %.0f million instructions per"
                    + " CPU-second of 10 rounds (target >= 200: %s); a byte-wise walk with lengths only: %.0f"
                    + " million (%d)%n", args[1].equals("synthetic") ? "synthetic" : "real code", b.walk(),
                    best / 1e6, (rates[4] + rates[5]) / 2e6, best >= 200e6 ? "met" : "not met", bestWalk / 1e6,
                    sink & 1);
            return;
        }
        org.openjdk.jmh.Main.main(args);
    }
}
