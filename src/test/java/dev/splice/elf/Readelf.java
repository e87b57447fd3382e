package dev.splice.elf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.splice.testing.Tools;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The independent oracle: llvm-readelf-22's JSON output for one file. */
final class Readelf {
    static final String TOOL = "llvm-readelf-22";
    private static final ObjectMapper JSON = new ObjectMapper();

    private Readelf() {}

    /** The JSON object llvm-readelf prints for {@code file} with the given options. */
    static JsonNode json(Path file, String... options) {
        List<String> command = new ArrayList<>(List.of(TOOL, "--elf-output-style=JSON"));
        command.addAll(List.of(options));
        command.add(file.toString());
        Tools.Result r = Tools.run(command, null, 300).checked(String.join(" ", command));
        try {
            return JSON.readTree(r.stdout()).get(0);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The "Value" member of an object such as {"Name": ..., "Value": n}. */
    static long value(JsonNode node) {
        return node.get("Value").asLong();
    }
}
