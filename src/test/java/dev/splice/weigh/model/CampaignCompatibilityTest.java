package dev.splice.weigh.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.weigh.campaign.Campaign;
import dev.splice.weigh.campaign.PairRow;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The model needs no more than the fields docs/formats.md requires of a pair row ("Campaign
 * input"): a campaign with only those (no guest clock, no translations, no pairs-off.jsonl, no
 * manifest), as another harness or an older campaign writes it, is modelled with every estimate.
 */
class CampaignCompatibilityTest {
    @TempDir Path dir;

    @Test
    void requiredFieldsAloneAreEnough() throws IOException {
        SyntheticCampaign s = SyntheticCampaign.typical(3, 41).with(b -> {
            b.translationShare = 0;
            return b;
        });
        List<String> lines = new ArrayList<>();
        for (PairRow p : s.campaign().pairs()) {
            lines.add(String.format(Locale.ROOT,
                    "{\"run\":\"%s\",\"context\":\"%s\",\"baseline\":\"%s\",\"batch\":%d,\"order\":\"%s\",\"round\":%d,"
                            + "\"position\":%s,\"probe_ns\":%s,\"baseline_ns\":%s}",
                    p.run(), p.context(), p.baseline(), p.batch(), p.order(), p.round(),
                    Double.toString(p.position()), Double.toString(p.probeNs()), Double.toString(p.baselineNs())));
        }
        Files.createDirectories(dir);
        Files.write(dir.resolve("pairs.jsonl"), lines);
        Campaign c = Campaign.read(dir, false);
        ModelResult r = WeighModel.run(c, ModelOptions.defaults().withReplicates(99).withThreads(2));
        assertEquals(3, r.contexts().size());
        for (int k = 0; k < 3; k++) {
            ContextResult x = r.contexts().get(k);
            assertEquals(s.truth()[k], x.estimate(), 4 * x.se(), x.context());
            assertTrue(x.ciLow() < x.estimate() && x.estimate() < x.ciHigh());
            assertTrue(Double.isFinite(x.interruptOverheadNs()), "interrupts need only the CPU times");
            assertTrue(x.reasons().stream().anyMatch(g -> g.gate().equals(QualityGates.OFF_UNAVAILABLE)));
        }
    }
}
