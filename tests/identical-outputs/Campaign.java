import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Writes a fixed synthetic weigh campaign for tests/identical-outputs.sh: {@code java Campaign.java DIR}.
 * The same bytes on every run (fixed seed). It holds what the model treats in different ways: clean
 * contexts, a noisy one that should fail the quality gates, pairs with translations and outliers, a
 * plugin-off file, a context the manifest expects but no row measures, and one malformed row
 * (read with --skip-bad-rows). Self-contained, so that it depends on neither tree being compared.
 */
public final class Campaign {
    private static final int RUNS = 8;
    private static final int ROUNDS = 6;
    private static final int CONTEXTS = 8;
    private static final int[] BATCHES = {4096, 16384, 65536};

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        Files.createDirectories(dir);
        SplittableRandom rng = new SplittableRandom(20260809);
        try (PrintWriter on = new PrintWriter(Files.newBufferedWriter(dir.resolve("pairs.jsonl")));
             PrintWriter off = new PrintWriter(Files.newBufferedWriter(dir.resolve("pairs-off.jsonl")))) {
            for (int r = 0; r < RUNS; r++) {
                double[] runEffect = new double[CONTEXTS];
                for (int k = 0; k < CONTEXTS; k++) {
                    runEffect[k] = 0.012 * rng.nextGaussian();
                }
                int slot = 0;
                int slots = ROUNDS * CONTEXTS * BATCHES.length;
                for (int q = 0; q < ROUNDS; q++) {
                    for (int k = 0; k < CONTEXTS; k++) {
                        for (int batch : BATCHES) {
                            double position = (slot++ + 0.5) / slots;
                            boolean ab = rng.nextBoolean();
                            double sd = k == CONTEXTS - 1 ? 0.8 : 0.01;
                            double d = 0.3 + 0.5 * k + runEffect[k] + 0.002 * (ab ? 0.5 : -0.5)
                                    + sd * Math.sqrt(16384.0 / batch) * rng.nextGaussian();
                            int translations = 0;
                            if (rng.nextDouble() < 0.02) {
                                d += (rng.nextBoolean() ? 1 : -1) * 0.3;
                            } else if (rng.nextDouble() < 0.01) {
                                translations = 1 + rng.nextInt(3);
                                d += 2 + rng.nextDouble();
                            }
                            double base = 4000 + 0.31 * batch + 50 * rng.nextDouble();
                            double guestBase = base * 1.02 + 30;
                            double guestProbe = guestBase + d * batch + 20 * rng.nextGaussian();
                            String common = String.format(Locale.ROOT,
                                    "{\"run\":\"run-%02d\",\"context\":\"%s\",\"baseline\":\"nop.shape\",\"batch\":%d,"
                                            + "\"order\":\"%s\",\"round\":%d,\"position\":%s,",
                                    r, context(k), batch, ab ? "AB" : "BA", q, position);
                            on.printf(Locale.ROOT, "%s\"probe_ns\":%s,\"baseline_ns\":%s,\"probe_guest_ns\":%s,"
                                            + "\"baseline_guest_ns\":%s,\"translations\":%d}%n",
                                    common, base + d * batch, base, guestProbe, guestBase, translations);
                            double offBase = base * 0.9;
                            double offD = d + 0.01 * rng.nextGaussian();
                            off.printf(Locale.ROOT, "%s\"probe_ns\":null,\"baseline_ns\":null,\"probe_guest_ns\":%s,"
                                    + "\"baseline_guest_ns\":%s,\"translations\":0}%n", common, offBase + offD * batch, offBase);
                        }
                    }
                }
            }
            on.println("{\"run\":\"run-00\",\"context\":\"" + context(0) + "\",\"batch\":\"not a number\"}");
        }
        StringBuilder manifest = new StringBuilder("{\"contexts\":[");
        for (int k = 0; k <= CONTEXTS; k++) {
            manifest.append(k == 0 ? "" : ",").append('"').append(context(k)).append('"');
        }
        Files.writeString(dir.resolve("manifest.json"), manifest.append("]}\n"));
    }

    private static String context(int k) {
        return String.format(Locale.ROOT, "op%03d.dependency", k);
    }
}
