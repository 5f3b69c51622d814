package dev.critpath.core.analysis.profile;

/**
 * Time charged to a cause at moments of the connection, summed as it comes: per exchange (the
 * charges made after its start, up to its end) and over the whole connection.
 */
final class Charges {
    private final long[] from;
    private final long[] to;
    private final long[] perExchange;
    private long total;

    /** @param from each exchange's start, {@code to} its end */
    Charges(long[] from, long[] to) {
        this.from = from;
        this.to = to;
        this.perExchange = new long[from.length];
    }

    void add(long atUs, long chargedUs) {
        for (int i = 0; i < from.length; i++) {
            if (atUs > from[i] && atUs <= to[i]) {
                perExchange[i] += chargedUs;
            }
        }
        if (atUs > Long.MIN_VALUE) {
            total += chargedUs;
        }
    }

    /** What was charged within exchange i. */
    long exchange(int i) {
        return perExchange[i];
    }

    long total() {
        return total;
    }
}
