package dev.critpath.core.analysis;

/** Microseconds per category; the parts of a profile that must add up to its duration. */
public final class CategoryTimes implements java.io.Serializable {
    private static final int CATEGORIES = Category.values().length;
    private final long[] us = new long[CATEGORIES];

    public long get(Category c) {
        return us[c.ordinal()];
    }

    public void add(Category c, long v) {
        us[c.ordinal()] += v;
    }

    public void addAll(CategoryTimes o) {
        for (int i = 0; i < us.length; i++) {
            us[i] += o.us[i];
        }
    }

    public long total() {
        long sum = 0;
        for (long v : us) {
            sum += v;
        }
        return sum;
    }

    /** All network time, whichever way it splits. */
    public long network() {
        return get(Category.PROPAGATION) + get(Category.QUEUING);
    }

    public long loss() {
        return get(Category.LOSS_TIMEOUT) + get(Category.LOSS_FAST_RETRANSMIT) + get(Category.LOSS_BACKOFF);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        for (Category c : Category.ALL) {
            if (get(c) != 0) {
                sb.append(sb.length() == 0 ? "" : " ").append(c.key()).append('=').append(get(c));
            }
        }
        return sb.toString();
    }
}
