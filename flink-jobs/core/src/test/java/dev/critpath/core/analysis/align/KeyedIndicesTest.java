package dev.critpath.core.analysis.align;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The sort and the searches against plain ones, on keys in order, nearly in order, and not at all. */
class KeyedIndicesTest {
    @Test
    void sortsByKeyThenIndexAndFindsLikeAPlainSearch() {
        Random rnd = new Random(19);
        KeyedIndices keyed = new KeyedIndices();
        for (int round = 0; round < 300; round++) {
            int n = rnd.nextInt(round < 100 ? 10 : 2_000);
            long[] keys = new long[n];
            int shape = round % 3;
            for (int i = 0; i < n; i++) {
                keys[i] = shape == 0 ? i / 3 : shape == 1 ? i * 10L - rnd.nextInt(40) : rnd.nextInt(50) - 25;
            }
            keyed.clear(n);
            int[] added = IntStream.range(0, n).toArray();
            for (int i = n - 1; i > 0 && round % 2 == 1; i--) { // every other round adds the indices out of order
                int j = rnd.nextInt(i + 1);
                int swap = added[i];
                added[i] = added[j];
                added[j] = swap;
            }
            for (int i : added) {
                keyed.add(keys[i], i);
            }
            keyed.sort();
            Integer[] expected = IntStream.range(0, n).boxed().toArray(Integer[]::new);
            Arrays.sort(expected, Comparator.<Integer>comparingLong(i -> keys[i]).thenComparingInt(i -> i));
            assertEquals(n, keyed.size);
            assertArrayEquals(Arrays.stream(expected).mapToInt(i -> i).toArray(), Arrays.copyOf(keyed.indices, n));
            for (int q = 0; q < 50; q++) {
                long key = rnd.nextInt(q < 25 ? 100 : 30_000) - 40;
                int first = 0;
                while (first < n && keys[expected[first]] < key) {
                    first++;
                }
                assertEquals(first, keyed.firstAtLeast(key), "first at least " + key);
                assertEquals(first < n && keys[expected[first]] == key ? expected[first] : -1, keyed.firstWith(key));
            }
        }
    }
}
