package dev.critpath.core.analysis;

import java.util.Arrays;
import java.util.Comparator;
import java.util.function.ToLongFunction;

/**
 * Stable sorting of arrays that are nearly always in order already (packets by time):
 * a check with the key itself, then a sort only if needed.
 */
public final class InOrder {
    private InOrder() {
    }

    public static <T> void sortBy(T[] items, ToLongFunction<T> key) {
        long prev = Long.MIN_VALUE;
        for (T item : items) {
            long k = key.applyAsLong(item);
            if (k < prev) {
                sort(items, key);
                return;
            }
            prev = k;
        }
    }

    /**
     * Sorted as packed primitive keys (key above its smallest, then the position, which keeps it
     * stable) where they fit in a long, which is every connection of less than hours; otherwise
     * through a comparator, many times slower.
     */
    private static <T> void sort(T[] items, ToLongFunction<T> key) {
        int n = items.length;
        long[] keys = new long[n];
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            keys[i] = key.applyAsLong(items[i]);
            min = Math.min(min, keys[i]);
            max = Math.max(max, keys[i]);
        }
        int indexBits = 32 - Integer.numberOfLeadingZeros(n);
        long range = max - min;
        if (range < 0 || 64 - Long.numberOfLeadingZeros(range) + indexBits > 63) {
            Arrays.sort(items, Comparator.comparingLong(key));
            return;
        }
        for (int i = 0; i < n; i++) {
            keys[i] = (keys[i] - min) << indexBits | i;
        }
        Arrays.sort(keys);
        T[] was = items.clone();
        long indexMask = (1L << indexBits) - 1;
        for (int i = 0; i < n; i++) {
            items[i] = was[(int) (keys[i] & indexMask)];
        }
    }
}
