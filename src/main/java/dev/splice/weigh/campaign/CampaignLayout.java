package dev.splice.weigh.campaign;

import java.nio.file.Path;
import java.util.List;

/**
 * Where a campaign directory keeps its files, as {@code splice weigh measure} writes them and
 * {@code splice weigh model} reads them (docs/formats.md, "Measurement campaign").
 *
 * @param dir the campaign directory
 */
public record CampaignLayout(Path dir) {
    /**
     * The plugin-on pairs of all runs.
     *
     * @return {@code DIR/pairs.jsonl}
     */
    public Path pairs() {
        return dir.resolve("pairs.jsonl");
    }

    /**
     * The plugin-off pairs of all runs.
     *
     * @return {@code DIR/pairs-off.jsonl}
     */
    public Path pairsOff() {
        return dir.resolve("pairs-off.jsonl");
    }

    /**
     * What was measured, where and with what ({@link Manifest}).
     *
     * @return {@code DIR/manifest.json}
     */
    public Path manifest() {
        return dir.resolve("manifest.json");
    }

    /**
     * The validation verdict of the campaign ({@link CampaignClosure}).
     *
     * @return {@code DIR/closure.json}
     */
    public Path closure() {
        return dir.resolve("closure.json");
    }

    /**
     * Translation blocks per kernel call ({@link BlockCounts}).
     *
     * @return {@code DIR/blocks.json}
     */
    public Path blocks() {
        return dir.resolve("blocks.json");
    }

    /**
     * The slots per kernel call of every context ({@link WindowDesign}).
     *
     * @return {@code DIR/design.json}
     */
    public Path design() {
        return dir.resolve("design.json");
    }

    /**
     * The probe the window design's pilot pass timed.
     *
     * @return {@code DIR/design-probe.elf}
     */
    public Path designProbe() {
        return dir.resolve("design-probe.elf");
    }

    /**
     * The small probe the block counts were taken with.
     *
     * @return {@code DIR/blocks-probe.elf}
     */
    public Path blocksProbe() {
        return dir.resolve("blocks-probe.elf");
    }

    /**
     * The files of one run.
     *
     * @param run the run's name, e.g. {@code run-01} ({@link #runName(int)})
     * @return the layout of {@code DIR/runs/RUN}
     */
    public Run run(String run) {
        return new Run(dir.resolve("runs").resolve(run));
    }

    /**
     * The name of run {@code index}.
     *
     * @param index 1-based run number
     * @return {@code run-01}, {@code run-02}, ...
     */
    public static String runName(int index) {
        return String.format("run-%02d", index);
    }

    /**
     * The files of one run's directory.
     *
     * @param dir {@code CAMPAIGN/runs/RUN}
     */
    public record Run(Path dir) {
        /** @return the run's probe executable, {@code probe.elf} */
        public Path probe() {
            return dir.resolve("probe.elf");
        }

        /** @return the plugin's records of the validation pass, {@code validation.records} */
        public Path validationRecords() {
            return dir.resolve("validation.records");
        }

        /** @return the plugin's records of the timing pass, {@code timing.records} */
        public Path timingRecords() {
            return dir.resolve("timing.records");
        }

        /** @return the guest clock of the validation pass, {@code validation.clock} */
        public Path validationClock() {
            return dir.resolve("validation.clock");
        }

        /** @return the guest clock of the timing pass, {@code timing.clock} */
        public Path timingClock() {
            return dir.resolve("timing.clock");
        }

        /** @return the guest clock of the plugin-off pass, {@code off.clock} */
        public Path offClock() {
            return dir.resolve("off.clock");
        }

        /** @return the run's validation verdict ({@link RunClosure}), {@code closure.json} */
        public Path closure() {
            return dir.resolve("closure.json");
        }

        /** @return the run's plugin-on pairs, {@code pairs.jsonl} */
        public Path pairs() {
            return dir.resolve("pairs.jsonl");
        }

        /** @return the run's plugin-off pairs, {@code pairs-off.jsonl} */
        public Path pairsOff() {
            return dir.resolve("pairs-off.jsonl");
        }

        /** @return the plugin-on pairs of the run's burn-in round, measured and not modelled, {@code burn-in.jsonl} */
        public Path burnIn() {
            return dir.resolve("burn-in.jsonl");
        }

        /** @return the plugin-off pairs of the run's burn-in round, {@code burn-in-off.jsonl} */
        public Path burnInOff() {
            return dir.resolve("burn-in-off.jsonl");
        }

        /**
         * The files whose checksums {@code run.json} records: what the campaign's files are made of
         * when a finished run is kept.
         *
         * @return {@code pairs.jsonl}, {@code pairs-off.jsonl}, {@code closure.json}
         */
        public List<Path> checksummed() {
            return List.of(pairs(), pairsOff(), closure());
        }

        /** @return the mark of a finished run ({@link FinishedRun}), {@code run.json}, written last */
        public Path finished() {
            return dir.resolve("run.json");
        }
    }
}
