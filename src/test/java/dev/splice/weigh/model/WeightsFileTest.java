package dev.splice.weigh.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.splice.base.BadInputException;
import dev.splice.weigh.campaign.Campaign;
import dev.splice.weigh.campaign.ContextWeight;
import dev.splice.weigh.campaign.Weights;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** weights.json is written and read by one class: reading what the model wrote gives the same bytes back. */
class WeightsFileTest {
    @TempDir Path dir;

    @Test
    void whatTheModelWritesReadsBackToTheSameBytes() throws IOException {
        SyntheticCampaign s = SyntheticCampaign.typical(3, 5).with(b -> {
            b.baselines = new String[] {"nop.shape", "op000.dependency", "mul.dependency"};
            return b;
        });
        Campaign c = s.campaign();
        // mul.dependency is expected but absent: op002 is unidentifiable, with a reason that carries text
        Campaign withManifest = new Campaign(c.pairs(), c.offPairs(), c.badRows(), Set.of("mul.dependency"), true);
        ModelResult r = WeighModel.run(withManifest, ModelOptions.defaults().withReplicates(30).withThreads(2).withSeed(4));
        r.writeTo(dir);
        Weights read = Weights.read(dir.resolve("weights.json"));
        assertEquals(Files.readString(dir.resolve("weights.json")), read.toJson());
        assertEquals(Files.readString(dir.resolve("weights.csv")), read.toCsv());
        assertEquals(r.weights(), read);
        ContextWeight unidentifiable = read.contexts().get(2);
        assertEquals(ContextWeight.Publication.UNIDENTIFIABLE, unidentifiable.publication());
        assertNull(unidentifiable.weightNs());
        assertTrue(unidentifiable.unidentifiable().startsWith("absent reference"), unidentifiable.unidentifiable());
        assertEquals(3, read.quality().high() + read.quality().low());
        assertEquals(4, read.bootstrap().seed());
    }

    @Test
    void readingIsLenientButNeedsTheSchemaAndEveryContextsKey() throws IOException {
        Path file = dir.resolve("weights.json");
        Files.writeString(file, "{\"schema\": \"splice.weigh.weights/7\", \"contexts\": [{\"context\": \"div.x\", "
                + "\"weight_ns\": 4.5, \"quality\": \"high\", \"publication\": \"estimate\"}]}");
        ContextWeight w = Weights.read(file).contexts().get(0);
        assertEquals(4.5, w.weightNs());
        assertTrue(w.highQuality());
        assertTrue(Double.isNaN(w.ciLowNs()));
        assertEquals(ContextWeight.Publication.ESTIMATE, w.publication());
        Files.writeString(file, "{\"schema\": \"splice.weigh.other/1\"}");
        assertThrows(BadInputException.class, () -> Weights.read(file));
        Files.writeString(file, "{\"schema\": \"splice.weigh.weights/1\", \"contexts\": [{\"estimate_ns\": 1}]}");
        BadInputException e = assertThrows(BadInputException.class, () -> Weights.read(file));
        assertTrue(e.getMessage().endsWith("contexts[0] has no 'context'"), e.getMessage());
    }
}
