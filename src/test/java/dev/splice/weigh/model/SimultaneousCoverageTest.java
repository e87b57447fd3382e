package dev.splice.weigh.model;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The family-wise 95% band covers all truths of a campaign in 93% to 97% of simulated campaigns
 * ({@link CoverageSimulation}: 12 runs of 10 probe rounds, 3 batch sizes, Student-t(4) noise, shifted
 * and translated pairs, interrupts at 0.6 per ms, a per-window fixed cost). The short version of
 * {@code bench/weigh-coverage.sh}: 450 campaigns in six cells, K = 10 contexts (100 campaigns each at a
 * run-to-run SD of 0, 1, 3 and 5 within-run SEs), K = 100 (30 at 3 SEs, half the run variance common
 * to all contexts) and K = 400 (20 at 5 SEs). The pooled share has a binomial SE of 1.0 point;
 * each cell must reach 85% (a cell of 20 campaigns has an SE of 5 points). About 40 s on one core.
 */
class SimultaneousCoverageTest {
    @Test
    void bandCoversAllTruthsInNinetyFivePercentOfCampaigns() {
        List<CoverageSimulation.Setting> cells = new ArrayList<>();
        for (double ratio : new double[] {0, 1, 3, 5}) {
            cells.add(new CoverageSimulation.Setting(10, 10, ratio, 0, 100, 999));
        }
        cells.add(new CoverageSimulation.Setting(100, 10, 3, 0.5, 30, 999));
        cells.add(new CoverageSimulation.Setting(400, 10, 5, 0, 20, 999));
        double se10 = CoverageSimulation.withinRunSe(10, 10);
        double se50 = CoverageSimulation.withinRunSe(50, 10);
        int covered = 0;
        int campaigns = 0;
        System.out.println(CoverageSimulation.HEADER);
        for (int i = 0; i < cells.size(); i++) {
            CoverageSimulation.Setting s = cells.get(i);
            CoverageSimulation.Row row = CoverageSimulation.run(s, s.contexts() == 10 ? se10 : se50, 5000L + 1000L * i, 1);
            System.out.println(row);
            assertTrue(row.share() >= 0.85, row.toString());
            covered += row.covered();
            campaigns += s.campaigns();
        }
        double share = covered / (double) campaigns;
        System.out.println("simultaneous coverage " + covered + "/" + campaigns);
        assertTrue(share >= 0.93 && share <= 0.97, "coverage " + covered + "/" + campaigns + " = " + share);
    }
}
