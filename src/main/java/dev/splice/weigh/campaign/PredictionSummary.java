package dev.splice.weigh.campaign;

import com.fasterxml.jackson.databind.JsonNode;
import dev.splice.base.BadInputException;
import java.nio.file.Path;

/**
 * What the report shows of one {@code splice weigh predict --json} output: only the four fields the
 * command promises (issue 12), so that the report does not depend on the rest of its format.
 *
 * @param label the program's name on the report (the file name without {@code .json})
 * @param predictedS predicted CPU time, seconds
 * @param lowS the interval's low end, seconds
 * @param highS the interval's high end, seconds
 * @param unpricedShare the share of executed instructions without a price
 */
public record PredictionSummary(String label, double predictedS, double lowS, double highS, double unpricedShare) {
    /**
     * Reads a {@code weigh predict --json} output.
     *
     * @param file the file
     * @return its summary, labelled by the file name
     * @throws BadInputException when the file is not JSON or lacks {@code predicted_s}, {@code low_s},
     *     {@code high_s} or {@code unpriced_share}
     */
    public static PredictionSummary read(Path file) {
        JsonNode root = Json.read(file);
        for (String f : new String[] {"predicted_s", "low_s", "high_s", "unpriced_share"}) {
            if (!root.path(f).isNumber()) {
                throw new BadInputException(file + ": not a 'weigh predict --json' output (no number " + f + ")");
            }
        }
        String name = file.getFileName().toString();
        String label = name.endsWith(".json") ? name.substring(0, name.length() - 5) : name;
        return new PredictionSummary(label, Json.num(root, "predicted_s"), Json.num(root, "low_s"), Json.num(root, "high_s"),
                Json.num(root, "unpriced_share"));
    }
}
