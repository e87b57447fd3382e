package dev.splice.weigh.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Student's t and Poisson tails against R 4.2 ({@code 2*pt(-t, df)}, {@code qt}, {@code ppois}), printed to 17 digits. */
class DistributionsTest {
    private static void close(double expected, double actual, double rel, String what) {
        assertEquals(expected, actual, rel * Math.abs(expected), what);
    }

    @Test
    void studentTailsAgreeWithR() {
        double[][] rows = {
            {1, 0.5, 0.70483276469913358}, {1, 2.2, 0.27159949756018364}, {1, 30, 0.021212804811070848},
            {3, 6.4, 0.0077271445074331199}, {3, 30, 8.1352804271639674e-05}, {11, 0.5, 0.62692621918384694},
            {11, 2.2, 0.050086110981804169}, {11, 6.4, 5.0805611455693741e-05}, {11, 30, 6.6669312213650595e-12},
            {100, 2.2, 0.030109331284800107}, {100, 6.4, 5.0650171503421367e-09}, {100, 30, 8.3803325586883361e-52}};
        for (double[] r : rows) {
            close(r[2], Distributions.studentTwoSidedTail(r[1], r[0]), 1e-11, "df " + r[0] + " t " + r[1]);
        }
    }

    @Test
    void studentCriticalValuesAgreeWithR() {
        double[][] rows = {
            {2, 0.05, 4.3026527297494619}, {2, 1.3e-4, 87.697250383418336}, {2, 1e-7, 3162.2774220743745},
            {11, 0.05, 2.2009851600916388}, {11, 1.3e-4, 5.7414284067480708}, {11, 1e-7, 12.177707988294374},
            {50, 0.05, 2.0085591121007607}, {50, 1.3e-4, 4.1477323063834453}, {50, 1e-7, 6.2185830431693425}};
        for (double[] r : rows) {
            close(r[2], Distributions.studentCritical(r[1], r[0]), 1e-9, "df " + r[0] + " p " + r[1]);
        }
    }

    @Test
    void poissonUpperTailsAgreeWithR() {
        double[][] rows = {
            {1, 0.3, 0.25918177931828212}, {1, 5.4, 0.99548341905738735}, {5, 0.3, 1.5785040541659967e-05},
            {5, 5.4, 0.62668922871785804}, {40, 5.4, 1.2589678744741389e-21}, {40, 43, 0.69686015580636951}};
        for (double[] r : rows) {
            close(r[2], Distributions.poissonUpperTail((int) r[0], r[1]), 1e-10, "n " + r[0] + " mu " + r[1]);
        }
        assertEquals(1.0, Distributions.poissonUpperTail(0, 3.0));
    }
}
