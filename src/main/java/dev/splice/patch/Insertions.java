package dev.splice.patch;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** How insertions are numbered for the {@code {id}} and {@code {counter}} template fields. */
final class Insertions {
    private Insertions() {}

    /**
     * The insertions in the order of their numbers, from 0: by address, and at one address in the
     * order given (the command line's). Insertion k's counter slot is {@code __splice_counters + 8k}.
     */
    static List<Insertion> numbered(List<Insertion> insertions) {
        List<Insertion> out = new ArrayList<>(insertions);
        out.sort(Comparator.comparingLong(Insertion::address)); // stable: the given order at one address
        return out;
    }
}
