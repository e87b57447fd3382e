package dev.splice.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.weigh.model.SyntheticCampaign;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code splice weigh model} and {@code splice weigh map} end to end. */
class WeighCommandTest {
    @TempDir Path dir;

    private Path campaign() {
        Path c = dir.resolve("campaign");
        SyntheticCampaign.typical(3, 77).write(c);
        return c;
    }

    /** Runs the CLI, returning the exit status and capturing stderr into err[0]. */
    private static int run(String[] err, String... args) {
        PrintStream old = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true));
        try {
            return Main.execute(args);
        } finally {
            System.setErr(old);
            err[0] = buf.toString();
        }
    }

    @Test
    void sameSeedGivesByteIdenticalOutputWhateverTheThreads() throws IOException {
        Path c = campaign();
        String[] err = new String[1];
        assertEquals(Main.OK, run(err, "weigh", "model", c.toString(), "-o", dir.resolve("a").toString(),
                "--bootstrap", "60", "--seed", "11", "--threads", "1", "--progress"));
        assertTrue(err[0].contains("bootstrap ["), "progress bar on stderr when asked for");
        assertEquals(Main.OK, run(err, "weigh", "model", c.toString(), "-o", dir.resolve("b").toString(),
                "--bootstrap", "60", "--seed", "11", "--threads", "2", "--no-progress"));
        assertEquals(Main.OK, run(err, "weigh", "model", c.toString(), "-o", dir.resolve("c").toString(),
                "--bootstrap", "60", "--seed", "12", "--no-progress"));
        for (String f : new String[] {"weights.json", "weights.csv", "report.md", "report.html"}) {
            assertArrayEquals(Files.readAllBytes(dir.resolve("a").resolve(f)), Files.readAllBytes(dir.resolve("b").resolve(f)), f);
        }
        assertFalse(Files.readString(dir.resolve("a/weights.json")).equals(Files.readString(dir.resolve("c/weights.json"))),
                "another seed gives other replicates");
        JsonNode w = new ObjectMapper().readTree(dir.resolve("a/weights.json").toFile());
        assertEquals("splice.weigh.weights/2", w.get("schema").asText());
        assertEquals(3, w.get("contexts").size());
        for (JsonNode ctx : w.get("contexts")) {
            for (String field : new String[] {"context", "estimate_ns", "ci_low_ns", "ci_high_ns", "quality", "reasons",
                    "ess", "pairs_kept", "pairs_removed"}) {
                assertTrue(ctx.has(field), field);
            }
        }
        String html = Files.readString(dir.resolve("a/report.html"));
        assertTrue(html.contains("<svg") && html.contains("logscale") && !html.contains("<script"));
        try (var s = Files.list(dir.resolve("a"))) {
            assertEquals(4, s.count(), "no temporary files left");
        }
    }

    @Test
    void badRowsAreReportedWithFileAndLineOrSkipped() throws IOException {
        Path c = campaign();
        Path pairs = c.resolve("pairs.jsonl");
        var lines = new java.util.ArrayList<>(Files.readAllLines(pairs));
        lines.set(4, lines.get(4).replace("\"order\":\"AB\"", "\"order\":\"XY\"").replace("\"order\":\"BA\"", "\"order\":\"XY\""));
        lines.set(9, "{not json");
        Files.write(pairs, lines);
        String[] err = new String[1];
        assertEquals(Main.BAD_INPUT, run(err, "weigh", "model", c.toString(), "-o", dir.resolve("o").toString(),
                "--bootstrap", "20", "--no-progress"));
        assertTrue(err[0].contains("pairs.jsonl:5: field 'order'"), err[0]);
        assertFalse(err[0].contains("Exception"), "no stack trace: " + err[0]);
        assertEquals(Main.OK, run(err, "weigh", "model", c.toString(), "-o", dir.resolve("o").toString(),
                "--bootstrap", "20", "--no-progress", "--skip-bad-rows"));
        JsonNode w = new ObjectMapper().readTree(dir.resolve("o/weights.json").toFile());
        assertEquals(2, w.at("/campaign/funnel/bad_rows_skipped").asInt());
        assertTrue(w.at("/campaign/bad_rows/1").asText().startsWith("pairs.jsonl:10:"), w.at("/campaign/bad_rows").toString());
    }

    @Test
    void missingCampaignIsBadInput() {
        String[] err = new String[1];
        assertEquals(Main.BAD_INPUT, run(err, "weigh", "model", dir.resolve("nothing").toString(), "-o", dir.toString()));
        assertEquals(Main.USAGE, run(err, "weigh", "model", dir.toString()));
        assertEquals(Main.USAGE, run(err, "weigh"));
    }

    /** A replicate count from the command line never sizes an allocation unchecked (it was an OutOfMemoryError). */
    @Test
    void aHugeBootstrapIsRefusedBeforeAnyWork() {
        Path c = campaign();
        String[] err = new String[1];
        assertEquals(Main.BAD_INPUT, run(err, "weigh", "model", c.toString(), "-o", dir.resolve("h").toString(),
                "--bootstrap", "2147483647", "--no-progress"));
        assertTrue(err[0].contains("--bootstrap must be from 19 to 99999, got 2147483647"), err[0]);
        assertFalse(err[0].contains("Exception") || err[0].contains("\tat "), "no stack trace: " + err[0]);
        assertFalse(Files.exists(dir.resolve("h")), "nothing written");
    }

    @Test
    void mapPublishesPerPolicy() throws IOException {
        Path c = campaign();
        String[] err = new String[1];
        assertEquals(Main.OK, run(err, "weigh", "model", c.toString(), "-o", dir.resolve("m").toString(),
                "--bootstrap", "40", "--no-progress"));
        Path catalog = dir.resolve("catalog.csv");
        Files.writeString(catalog, "key,count\nop000,10\nop001.dependency,3\ncsrrs.fflags,4\nunmeasured.thing,1\n");
        assertEquals(Main.OK, run(err, "weigh", "map", dir.resolve("m/weights.json").toString(), catalog.toString()));
        JsonNode m = new ObjectMapper().readTree(dir.resolve("m/mapping.json").toFile());
        assertEquals("strict", m.at("/classes/0/status").asText(), m.toString());
        assertEquals("op000.dependency", m.at("/classes/0/contexts/0").asText());
        assertEquals("strict", m.at("/classes/1/status").asText());
        assertEquals("restricted", m.at("/classes/2/status").asText());
        assertEquals("unmeasured", m.at("/classes/3/status").asText());
        assertEquals("op002.dependency", m.at("/orphans/0").asText());
        assertTrue(Files.readString(dir.resolve("m/mapping.csv")).contains("op002.dependency,orphan"));
        Files.writeString(catalog, "key,count\nop000,ten\n");
        assertEquals(Main.BAD_INPUT, run(err, "weigh", "map", dir.resolve("m/weights.json").toString(), catalog.toString()));
        assertTrue(err[0].contains("catalog.csv:2"), err[0]);
        // An empty catalog: a warning and exit 2, unless --allow-empty.
        Files.writeString(catalog, "key,count\n");
        assertEquals(Main.BAD_INPUT, run(err, "weigh", "map", dir.resolve("m/weights.json").toString(), catalog.toString()));
        assertTrue(err[0].contains("holds no instruction class"), err[0]);
        assertEquals(Main.OK, run(err, "weigh", "map", dir.resolve("m/weights.json").toString(), catalog.toString(),
                "--allow-empty"));
    }
}
