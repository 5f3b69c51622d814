package dev.critpath.core.analysis.profile;

import java.util.Arrays;

/** Time charged to a cause at moments of the connection: {when, µs} pairs, summed over a span. */
final class Charges {
    private static final long[] NONE = {};
    private long[] when = NONE;
    private long[] us = NONE;
    private int size;

    void add(long atUs, long chargedUs) {
        if (size == when.length) {
            when = Arrays.copyOf(when, Math.max(8, 2 * size));
            us = Arrays.copyOf(us, Math.max(8, 2 * size));
        }
        when[size] = atUs;
        us[size] = chargedUs;
        size++;
    }

    /** What was charged after {@code from}, up to {@code to}. */
    long sum(long from, long to) {
        long sum = 0;
        for (int i = 0; i < size; i++) {
            if (when[i] > from && when[i] <= to) {
                sum += us[i];
            }
        }
        return sum;
    }

    long total() {
        return sum(Long.MIN_VALUE, Long.MAX_VALUE);
    }
}
