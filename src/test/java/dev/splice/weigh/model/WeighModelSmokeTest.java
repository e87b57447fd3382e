package dev.splice.weigh.model;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class WeighModelSmokeTest {
    @Test
    void smoke() {
        SyntheticCampaign.typical(8, 1).write(Path.of("/tmp/splice-smoke"));
        long t0 = System.nanoTime();
        dev.splice.cli.Main.execute("weigh", "model", "/tmp/splice-smoke", "-o", "/tmp/splice-smoke/out", "--bootstrap", "199");
        System.out.println("time " + (System.nanoTime() - t0) / 1e6 + " ms");
    }
}
