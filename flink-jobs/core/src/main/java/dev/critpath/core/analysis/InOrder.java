package dev.critpath.core.analysis;

import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * Stable sorting of lists that are nearly always in order already (packets by time): a check
 * with the key itself, small enough to be inlined at each caller, then a sort only if needed.
 */
public final class InOrder {
    private InOrder() {
    }

    public static <T> void sortBy(List<T> list, ToLongFunction<T> key) {
        long prev = Long.MIN_VALUE;
        for (int i = 0, n = list.size(); i < n; i++) {
            long k = key.applyAsLong(list.get(i));
            if (k < prev) {
                sort(list, key);
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
    private static <T> void sort(List<T> list, ToLongFunction<T> key) {
        int n = list.size();
        long[] keys = new long[n];
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (int i = 0; i < n; i++) {
            keys[i] = key.applyAsLong(list.get(i));
            min = Math.min(min, keys[i]);
            max = Math.max(max, keys[i]);
        }
        int indexBits = 32 - Integer.numberOfLeadingZeros(n);
        long range = max - min;
        if (range < 0 || 64 - Long.numberOfLeadingZeros(range) + indexBits > 63) {
            list.sort(Comparator.comparingLong(key));
            return;
        }
        for (int i = 0; i < n; i++) {
            keys[i] = (keys[i] - min) << indexBits | i;
        }
        Arrays.sort(keys);
        Object[] was = list.toArray();
        long indexMask = (1L << indexBits) - 1;
        for (int i = 0; i < n; i++) {
            @SuppressWarnings("unchecked")
            T t = (T) was[(int) (keys[i] & indexMask)];
            list.set(i, t);
        }
    }
}
