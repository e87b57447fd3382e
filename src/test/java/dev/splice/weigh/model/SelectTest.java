package dev.splice.weigh.model;

import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Assertions;

/** Quickselect median against sorting. */
class SelectTest {
    @Property(tries = 300)
    void medianEqualsSortedMedian(@ForAll @Size(min = 1, max = 60) java.util.List<@DoubleRange(min = -5, max = 5) Double> list) {
        double[] values = list.stream().mapToDouble(Double::doubleValue).toArray();
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        double expected = n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
        Assertions.assertEquals(expected, Select.median(values.clone()));
        double[] abs = Arrays.stream(values).map(Math::abs).toArray();
        double[] sortedAbs = abs.clone();
        Arrays.sort(sortedAbs);
        double expectedAbs = n % 2 == 1 ? sortedAbs[n / 2] : (sortedAbs[n / 2 - 1] + sortedAbs[n / 2]) / 2;
        // Guesses that hit the bracket, miss it on either side, or are unusable.
        for (double guess : new double[] {expectedAbs, expectedAbs * 1.05, expectedAbs * 0.5, expectedAbs * 3, 0, Double.NaN}) {
            Assertions.assertEquals(expectedAbs, Select.medianNear(abs.clone(), guess, new double[n]), "guess " + guess);
        }
    }
}
