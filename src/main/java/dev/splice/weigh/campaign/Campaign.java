package dev.splice.weigh.campaign;

import dev.splice.base.BadInputException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * A campaign as the model reads it: plugin-on pairs, plugin-off pairs, the rows skipped as bad, the
 * contexts the campaign meant to measure, and where its probes ran.
 *
 * @param pairs the rows of {@code pairs.jsonl}
 * @param offPairs the rows of {@code pairs-off.jsonl} (empty when the file is absent)
 * @param badRows rows skipped as malformed (only when reading with bad rows skipped)
 * @param expectedContexts the {@code contexts} of {@code manifest.json} (empty when unknown): they tell
 *     an absent reference from a zero reference
 * @param offFilePresent whether {@code pairs-off.jsonl} exists (without it the plugin-off check is
 *     unavailable)
 * @param mode {@code manifest.json}'s {@code mode}: {@link Manifest#USER_MODE} or
 *     {@link Manifest#SYSTEM_MODE}; user mode when the manifest is absent or names none (older campaigns)
 * @param qemuCpu the QEMU CPU model the runs used: {@code manifest.json}'s {@code qemu_cpu}, {@link #DEFAULT_CPU}
 *     when the manifest names none (QEMU's default CPU), null without a manifest (unknown)
 */
public record Campaign(List<PairRow> pairs, List<PairRow> offPairs, List<BadRow> badRows, Set<String> expectedContexts,
        boolean offFilePresent, String mode, String qemuCpu) {
    /** What {@link #qemuCpu()} and weights.json's {@code qemu_cpu} say for QEMU's default CPU (no {@code -cpu}). */
    public static final String DEFAULT_CPU = "default";

    /**
     * Copies every collection.
     *
     * @param pairs see {@link #pairs()}
     * @param offPairs see {@link #offPairs()}
     * @param badRows see {@link #badRows()}
     * @param expectedContexts see {@link #expectedContexts()}
     * @param offFilePresent see {@link #offFilePresent()}
     * @param mode see {@link #mode()}
     * @param qemuCpu see {@link #qemuCpu()}
     */
    public Campaign {
        pairs = List.copyOf(pairs);
        offPairs = List.copyOf(offPairs);
        badRows = List.copyOf(badRows);
        expectedContexts = Set.copyOf(expectedContexts);
        Objects.requireNonNull(mode, "mode");
    }

    /**
     * A user-mode campaign.
     *
     * @param pairs see {@link #pairs()}
     * @param offPairs see {@link #offPairs()}
     * @param badRows see {@link #badRows()}
     * @param expectedContexts see {@link #expectedContexts()}
     * @param offFilePresent see {@link #offFilePresent()}
     */
    public Campaign(List<PairRow> pairs, List<PairRow> offPairs, List<BadRow> badRows, Set<String> expectedContexts,
            boolean offFilePresent) {
        this(pairs, offPairs, badRows, expectedContexts, offFilePresent, Manifest.USER_MODE, null);
    }

    /**
     * A campaign whose CPU model is unknown.
     *
     * @param pairs see {@link #pairs()}
     * @param offPairs see {@link #offPairs()}
     * @param badRows see {@link #badRows()}
     * @param expectedContexts see {@link #expectedContexts()}
     * @param offFilePresent see {@link #offFilePresent()}
     * @param mode see {@link #mode()}
     */
    public Campaign(List<PairRow> pairs, List<PairRow> offPairs, List<BadRow> badRows, Set<String> expectedContexts,
            boolean offFilePresent, String mode) {
        this(pairs, offPairs, badRows, expectedContexts, offFilePresent, mode, null);
    }

    /**
     * Reads a campaign directory: {@code pairs.jsonl} (required), {@code pairs-off.jsonl} and the
     * {@code contexts} and {@code mode} of {@code manifest.json} (both optional). Every refused row names file, line
     * and field.
     *
     * @param dir the campaign directory
     * @param skipBadRows skip and count malformed rows instead of refusing the campaign at the first
     * @return the campaign
     * @throws BadInputException when the directory or {@code pairs.jsonl} is missing, a row is
     *     malformed (unless skipped), no usable pair remains, or the manifest is not JSON
     */
    public static Campaign read(Path dir, boolean skipBadRows) {
        if (!Files.isDirectory(dir)) {
            throw new BadInputException(dir + ": not a campaign directory");
        }
        CampaignLayout layout = new CampaignLayout(dir);
        Path on = layout.pairs();
        if (!Files.isRegularFile(on)) {
            throw new BadInputException(on + ": missing (a campaign directory holds pairs.jsonl)");
        }
        List<BadRow> bad = new ArrayList<>();
        List<PairRow> pairs = PairRows.read(on, false, skipBadRows, bad);
        Path off = layout.pairsOff();
        boolean offPresent = Files.isRegularFile(off);
        List<PairRow> offPairs = offPresent ? PairRows.read(off, true, skipBadRows, bad) : List.of();
        if (pairs.isEmpty()) {
            throw new BadInputException(on + ": no usable pairs");
        }
        Path manifest = layout.manifest();
        if (!Files.isRegularFile(manifest)) {
            return new Campaign(pairs, offPairs, bad, Set.of(), offPresent);
        }
        Manifest m = Manifest.read(manifest);
        return new Campaign(pairs, offPairs, bad, Set.copyOf(m.contexts()), offPresent, m.mode(),
                m.qemuCpu().orElse(DEFAULT_CPU));
    }
}
