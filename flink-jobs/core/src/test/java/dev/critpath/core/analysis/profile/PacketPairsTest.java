package dev.critpath.core.analysis.profile;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The median by selection against the median of the sorted rates. */
class PacketPairsTest {
    @Test
    void medianIsTheSortedMiddle() {
        Random rnd = new Random(5);
        for (int n = 0; n < 60; n++) {
            for (int round = 0; round < 50; round++) {
                double[] rates = new double[n + 3];
                for (int i = 0; i < rates.length; i++) { // few distinct values at times: ties
                    rates[i] = round % 2 == 0 ? rnd.nextInt(4) : rnd.nextDouble() * 100;
                }
                double[] sorted = Arrays.copyOf(rates, n);
                Arrays.sort(sorted);
                double expected = n < PacketPairs.MIN_PAIRS ? PacketPairs.UNKNOWN
                        : n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
                assertEquals(expected, PacketPairs.median(rates, n), n + " rates, round " + round);
            }
        }
    }
}
