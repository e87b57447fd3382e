package dev.splice.patch;

import static org.junit.jupiter.api.Assertions.assertSame;

import dev.splice.elf.Function;
import dev.splice.elf.Section;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

/**
 * {@link Trampolines#lastBefore}'s binary search against the walk from the first function it
 * replaced, over sorted function lists with shared addresses, zero sizes and functions that end
 * at the queried entry.
 */
class LastBeforeProperties {
    private static final Section TEXT = new Section(1, ".text", Section.SHT_PROGBITS, Section.SHF_ALLOC | Section.SHF_EXECINSTR,
            0x1000, 0x1000, 0x1000, 0, 0, 4, 0);

    @Provide
    Arbitrary<List<Function>> functions() {
        Arbitrary<Function> one = Arbitraries.longs().between(0x1000, 0x1040).flatMap(a -> Arbitraries.longs().between(0, 12)
                .map(size -> new Function("f" + a + "_" + size, a, size, TEXT)));
        return one.list().ofMaxSize(30).map(fs -> {
            List<Function> sorted = new ArrayList<>(fs);
            sorted.sort(Comparator.comparingLong(Function::address).thenComparingLong(Function::size));
            return sorted;
        });
    }

    @Property(tries = 2000)
    void findsWhatTheWalkFinds(@ForAll("functions") List<Function> functions, @ForAll @LongRange(min = 0xff8, max = 0x1050) long start) {
        Function walked = null;
        for (Function f : functions) {
            if (f.address() >= start) {
                break;
            }
            if (walked == null || f.address() > walked.address() || f.endAddress() == start) {
                walked = f;
            }
        }
        assertSame(walked, Trampolines.lastBefore(functions, start));
    }
}
