package dev.splice.weigh.measure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The plugin-on/plugin-off pass order is drawn per run from the run's seed, about half each way. */
class PassOrderTest {
    @Test
    void eachOrderComesUpAboutHalfTheTimeAndTheSameSeedGivesTheSameOrder() {
        MeasureOptions options = MeasureOptions.of("formal", null, 999, null, 1, false, 1, Path.of("x"), 0);
        int offFirst = 0;
        for (int run = 1; run <= 999; run++) {
            long seed = options.runSeed(run);
            assertEquals(MeasureCampaign.offFirst(seed), MeasureCampaign.offFirst(seed));
            offFirst += MeasureCampaign.offFirst(seed) ? 1 : 0;
        }
        // binomial(999, 1/2): 440..560 holds with probability 1 - 2e-4
        assertTrue(offFirst > 440 && offFirst < 560, offFirst + " of 999 runs off first");
    }
}
