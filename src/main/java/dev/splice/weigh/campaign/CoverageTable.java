package dev.splice.weigh.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.BadInputException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code coverage.json}: the family-wise coverage of the model's simultaneous band on simulated
 * campaigns, cell by cell, as {@code bench/weigh-coverage.sh} writes it and {@code weigh model
 * --coverage} draws it (docs/weigh-model.md, section 3, "Coverage of the whole pipeline").
 *
 * @param cells the grid's cells, in the order simulated
 */
public record CoverageTable(List<Cell> cells) {
    /** The schema name and version written. */
    public static final String SCHEMA = "splice.weigh.coverage/1";

    /**
     * Copies the cells.
     *
     * @param cells see {@link #cells()}
     */
    public CoverageTable {
        cells = List.copyOf(cells);
    }

    /**
     * One cell: campaigns simulated with one setting, and how many had every truth inside the band.
     *
     * @param contexts contexts per campaign (K)
     * @param rounds probe rounds per run
     * @param runSdRatio run-to-run SD over the within-run SE of a run's estimate
     * @param runCorrelation share of the run-to-run variance common to all contexts
     * @param medianI2 median between-run share I^2 over the campaigns (each its contexts' median)
     * @param campaigns campaigns simulated
     * @param covered campaigns whose band contained every context's truth
     */
    public record Cell(int contexts, int rounds, double runSdRatio, double runCorrelation, double medianI2, int campaigns,
            int covered) {
        /**
         * The share of campaigns covered.
         *
         * @return covered / campaigns
         */
        public double share() {
            return covered / (double) campaigns;
        }
    }

    /**
     * The file's text: indented JSON, {@code schema} and {@code cells}.
     *
     * @return the JSON text with a final newline
     */
    public String toJson() {
        ObjectNode root = Json.object();
        root.put("schema", SCHEMA);
        ArrayNode a = root.putArray("cells");
        for (Cell c : cells) {
            ObjectNode o = a.addObject();
            o.put("contexts", c.contexts());
            o.put("rounds", c.rounds());
            Json.num(o, "run_sd_ratio", c.runSdRatio());
            Json.num(o, "run_correlation", c.runCorrelation());
            Json.num(o, "median_i2", c.medianI2());
            o.put("campaigns", c.campaigns());
            o.put("covered", c.covered());
        }
        return Json.file(root);
    }

    /**
     * Reads a {@code coverage.json}.
     *
     * @param file the file
     * @return the table
     * @throws BadInputException when the file is not JSON, has another schema, or a cell lacks its
     *     counts or has more covered campaigns than campaigns
     */
    public static CoverageTable read(Path file) {
        JsonNode root = Json.read(file);
        if (!SCHEMA.equals(root.path("schema").asText())) {
            throw new BadInputException(file + ": not a coverage table (schema " + SCHEMA + " expected)");
        }
        List<Cell> cells = new ArrayList<>();
        int i = 0;
        for (JsonNode c : root.path("cells")) {
            int campaigns = c.path("campaigns").asInt(-1);
            int covered = c.path("covered").asInt(-1);
            if (campaigns < 1 || covered < 0 || covered > campaigns || !c.path("contexts").isInt()) {
                throw new BadInputException(file + ": cells[" + i + "]: needs contexts, campaigns >= 1 and 0 <= covered <= campaigns");
            }
            cells.add(new Cell(c.path("contexts").asInt(), c.path("rounds").asInt(), Json.num(c, "run_sd_ratio"),
                    Json.num(c, "run_correlation"), Json.num(c, "median_i2"), campaigns, covered));
            i++;
        }
        return new CoverageTable(cells);
    }
}
