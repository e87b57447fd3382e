package dev.splice.patch;

import dev.splice.patch.FragmentTemplate.Field;
import java.util.List;

/**
 * What an output counts and keeps: at least {@code count} counter slots (more when a fragment uses
 * {@code {counter}}: one per insertion), written at exit to {@code file} (a name in which
 * {@code %p} becomes the process id; the environment variable {@value SpliceRuntime#VARIABLE}
 * overrides it at run time), and {@code data} more bytes of the zeroed data area for fragments.
 *
 * @param count the counter slots asked for ({@code --counters N})
 * @param file the output file's name
 * @param data the bytes {@link Rewrite#reserveData} asked for (0: none)
 * @param runtime the user's runtime object linked with the shipped runtime ({@code --runtime}), or null
 */
record Counters(int count, String file, long data, RuntimeObject runtime) {
    /** No counters asked for; the default file name; no data; no runtime object. */
    static final Counters NONE = new Counters(0, SpliceRuntime.DEFAULT_FILE, 0, null);

    Counters {
        if (count < 0) {
            throw new IllegalArgumentException("a negative number of counters: " + count);
        }
        if (file == null || file.isEmpty()) {
            file = SpliceRuntime.DEFAULT_FILE;
        }
    }

    /** {@return these options with {@code bytes} of data for fragments} */
    Counters withData(long bytes) {
        return new Counters(count, file, bytes, runtime);
    }

    /** {@return these options with at least {@code slots} counters} */
    Counters withCount(int slots) {
        return new Counters(slots, file, data, runtime);
    }

    /** {@return these options writing to {@code name}} */
    Counters withFile(String name) {
        return new Counters(count, name, data, runtime);
    }

    /** {@return these options linking the runtime object {@code object}} */
    Counters withRuntime(RuntimeObject object) {
        return new Counters(count, file, data, object);
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
