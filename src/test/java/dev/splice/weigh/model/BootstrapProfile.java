package dev.splice.weigh.model;

/**
 * Not a test: {@code java -cp ... dev.splice.weigh.model.BootstrapProfile [CONTEXTS] [B]} times the
 * full-data analysis and the bootstrap of a synthetic campaign on one thread (used while tuning).
 */
public final class BootstrapProfile {
    private BootstrapProfile() {}

    public static void main(String[] args) {
        int k = args.length > 0 ? Integer.parseInt(args[0]) : 213;
        int b = args.length > 1 ? Integer.parseInt(args[1]) : 30;
        CampaignData data = CampaignData.of(SyntheticCampaign.typical(k, 1).campaign());
        for (int round = 0; round < 3; round++) {
            long t0 = System.nanoTime();
            for (ContextData c : data.contexts()) {
                ContextAnalysis.analyse(c, data.off(c.context()), data.runs(), FitOptions.SPLICE);
            }
            long t1 = System.nanoTime();
            java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
            long cpu0 = mx.getCurrentThreadCpuTime();
            // One worker thread; it runs on the pool thread, so also time this thread's CPU for the draw.
            Bootstrap.run(data, data.contexts(), b, 1, FitOptions.SPLICE, 1, x -> {});
            long t2 = System.nanoTime();
            System.out.printf("analysis %.0f ms, bootstrap %.1f ms wall per replicate (one thread), process CPU %.1f s%n",
                    (t1 - t0) / 1e6, (t2 - t1) / 1e6 / b,
                    ((com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory
                            .getOperatingSystemMXBean()).getProcessCpuTime() / 1e9);
        }
    }
}
