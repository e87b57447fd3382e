package dev.splice.patch;

import dev.splice.patch.FragmentTemplate.Field;
import java.util.List;

/**
 * What an output counts: at least {@code count} counter slots (more when a fragment uses
 * {@code {counter}}: one per insertion), written at exit to {@code file} (a name in which
 * {@code %p} becomes the process id; the environment variable {@value SpliceRuntime#VARIABLE}
 * overrides it at run time).
 *
 * @param count the counter slots asked for ({@code --counters N})
 * @param file the output file's name
 */
record Counters(int count, String file) {
    /** No counters asked for; the default file name. */
    static final Counters NONE = new Counters(0, SpliceRuntime.DEFAULT_FILE);

    Counters {
        if (count < 0) {
            throw new IllegalArgumentException("a negative number of counters: " + count);
        }
        if (file == null || file.isEmpty()) {
            file = SpliceRuntime.DEFAULT_FILE;
        }
    }

    /** {@return the slots asked for} */
    int slots() {
        return count;
    }

    /** The slots of a rewrite: those asked for, and one per insertion when a fragment uses {@code {counter}}. */
    int slots(List<Insertion> insertions, FragmentAssembler fragments) {
        for (Insertion i : insertions) {
            if (fragments.uses(i, Field.COUNTER)) {
                return Math.max(count, insertions.size());
            }
        }
        return count;
    }
}
