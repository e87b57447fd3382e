package dev.splice.weigh.campaign;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.splice.base.AtomicFiles;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A campaign's {@code blocks.json}: translation blocks per kernel call, per context (docs/formats.md,
 * "blocks.json"). Written by {@code splice weigh measure}; no Splice command reads it back (the
 * manifest repeats the counts).
 *
 * @param method how the blocks were counted
 * @param contexts per context, in probe order
 */
public record BlockCounts(String method, Map<String, Kernel> contexts) {
    /**
     * Copies the contexts, keeping their order.
     *
     * @param method see {@link #method()}
     * @param contexts see {@link #contexts()}
     */
    public BlockCounts {
        contexts = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(contexts));
    }

    /**
     * One kernel's blocks.
     *
     * @param blocksPerCall translation blocks one kernel call executes
     * @param slotsPerBlock target slots per block (0 when no block was counted)
     */
    public record Kernel(double blocksPerCall, double slotsPerBlock) {}

    /**
     * The file's text.
     *
     * @return indented JSON, newline at the end
     */
    public String toJson() {
        ObjectNode root = Json.object();
        root.put("method", method);
        ObjectNode c = root.putObject("contexts");
        contexts.forEach((k, v) -> {
            ObjectNode n = c.putObject(k);
            n.put("blocks_per_call", v.blocksPerCall());
            n.put("slots_per_block", v.slotsPerBlock());
        });
        return Json.file(root);
    }

    /**
     * Writes the file through a temporary file and a rename.
     *
     * @param file usually {@link CampaignLayout#blocks()}
     */
    public void write(Path file) {
        AtomicFiles.write(file, toJson());
    }
}
