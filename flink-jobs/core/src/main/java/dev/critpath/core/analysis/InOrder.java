package dev.critpath.core.analysis;

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
                list.sort(Comparator.comparingLong(key));
                return;
            }
            prev = k;
        }
    }
}
