package dev.splice.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** RawCounts against a HashMap oracle: stored plus refused records sum to the same totals. */
class RawCountsProperties {
    record Rec(long from, long to, long count, long mispreds) {}

    @Provide
    Arbitrary<List<Rec>> records() {
        // Few distinct addresses (repeats), some above 32 bits or the empty marker, counts up to 2^40.
        Arbitrary<Long> address = Arbitraries.oneOf(
                Arbitraries.longs().between(0, 40),
                Arbitraries.of(0xffffffffL, 1L << 32, Long.MIN_VALUE, -1L));
        Arbitrary<Long> count = Arbitraries.oneOf(Arbitraries.longs().between(0, 100), Arbitraries.longs().between(0, 1L << 40));
        return Combinators.combine(address, address, count, count).as(Rec::new).list().ofMaxSize(3000);
    }

    @Property(tries = 200)
    void storedAndRefusedRecordsSumLikeAMap(@ForAll("records") List<Rec> records) {
        Map<List<Long>, long[]> expected = new HashMap<>();
        Map<List<Long>, long[]> actual = new HashMap<>();
        RawCounts table = new RawCounts();
        for (Rec r : records) {
            sum(expected, r.from(), r.to(), r.count(), r.mispreds());
            if (!table.add(r.from(), r.to(), r.count(), r.mispreds())) {
                sum(actual, r.from(), r.to(), r.count(), r.mispreds());
            }
        }
        table.forEach((from, to, count, mispreds) -> sum(actual, from, to, count, mispreds));
        assertEquals(toLists(expected), toLists(actual));
        table.clear();
        assertEquals(0, table.size());
        table.forEach((from, to, count, mispreds) -> {
            throw new AssertionError("cleared table visited a record");
        });
    }

    private static void sum(Map<List<Long>, long[]> map, long from, long to, long count, long mispreds) {
        long[] v = map.computeIfAbsent(List.of(from, to), k -> new long[2]);
        v[0] += count;
        v[1] += mispreds;
    }

    private static Map<List<Long>, List<Long>> toLists(Map<List<Long>, long[]> map) {
        Map<List<Long>, List<Long>> out = new HashMap<>();
        map.forEach((k, v) -> out.put(k, List.of(v[0], v[1])));
        return out;
    }
}
