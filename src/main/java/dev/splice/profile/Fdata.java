package dev.splice.profile;

import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * A profile in BOLT's fdata format, in input-binary coordinates: branch lines (from location, to
 * location, mispredictions, count) or, in no-LBR mode, sample lines (location, count). A location
 * is a function name and an offset; an unknown location is written "0 [unknown] 0".
 *
 * @param noLbr a no-LBR (basic samples) profile: sample lines, the event names in its header
 * @param eventNames the events the samples count (E records)
 * @param branches the branch lines, in output order
 * @param samples the sample lines, in output order
 * @param boltedCollection collected on a BOLTed binary (the header line perf2bolt then writes)
 */
public record Fdata(boolean noLbr, List<String> eventNames, List<Branch> branches, List<Sample> samples,
                    boolean boltedCollection) {
    /**
     * The profile; the lists are copied.
     *
     * @param noLbr a no-LBR profile
     * @param eventNames the sampled events
     * @param branches the branch lines
     * @param samples the sample lines
     * @param boltedCollection collected on a BOLTed binary
     */
    public Fdata {
        eventNames = List.copyOf(eventNames);
        branches = List.copyOf(branches);
        samples = List.copyOf(samples);
    }

    /**
     * A location: a function's location name and an offset in the input function.
     *
     * @param name the function's location name as BOLT names it; null: unknown
     * @param offset the offset in it
     */
    public record Location(String name, long offset) {
        /** An unknown location ("0 [unknown] 0"). */
        public static final Location UNKNOWN = new Location(null, 0);

        void write(StringBuilder out) {
            if (name == null) {
                out.append("0 [unknown] ").append(Long.toHexString(offset));
            } else {
                out.append("1 ").append(escape(name)).append(' ').append(Long.toHexString(offset));
            }
        }
    }

    /**
     * A branch line.
     *
     * @param from where the branch is
     * @param to where it goes
     * @param mispreds how often it was mispredicted
     * @param count how often it was taken
     */
    public record Branch(Location from, Location to, long mispreds, long count) {}

    /**
     * A sample line (no-LBR profiles).
     *
     * @param at the sampled location
     * @param count the number of samples
     */
    public record Sample(Location at, long count) {}

    /** The same profile, collected on a binary BOLT has not rewritten (no "boltedcollection" header). */
    Fdata collectedOnInput() {
        return new Fdata(noLbr, eventNames, branches, samples, false);
    }

    static String escape(String name) {
        return name.replace(" ", "\\ ");
    }

    /**
     * Writes the profile. The header says whether the profile was collected on a BOLTed binary; in
     * no-LBR mode `no_lbr` comes first, the only order llvm-bolt's reader accepts (perf2bolt writes it
     * second).
     *
     * @param out where the text goes (not closed)
     * @throws IOException if writing fails
     */
    public void write(Writer out) throws IOException {
        StringBuilder line = new StringBuilder(128);
        if (noLbr) {
            out.write("no_lbr");
            for (String e : eventNames) {
                out.write(' ');
                out.write(e);
            }
            out.write('\n');
        }
        if (boltedCollection) {
            out.write("boltedcollection\n");
        }
        for (Branch b : branches) {
            line.setLength(0);
            b.from().write(line);
            line.append(' ');
            b.to().write(line);
            line.append(' ').append(b.mispreds()).append(' ').append(b.count()).append('\n');
            out.append(line);
        }
        for (Sample s : samples) {
            line.setLength(0);
            s.at().write(line);
            line.append(' ').append(s.count()).append('\n');
            out.append(line);
        }
    }
}
