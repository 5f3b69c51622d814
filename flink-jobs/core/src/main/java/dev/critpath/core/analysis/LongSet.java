package dev.critpath.core.analysis;

/** A set of longs without boxing (open addressing), for per-packet lookups. */
public final class LongSet {
    private static final long EMPTY = Long.MIN_VALUE;
    private long[] slots = newSlots(16);
    private int size;
    private boolean holdsEmpty;

    private static long[] newSlots(int n) {
        long[] a = new long[n];
        java.util.Arrays.fill(a, EMPTY);
        return a;
    }

    /** @return true when v was not in the set */
    public boolean add(long v) {
        if (v == EMPTY) {
            boolean added = !holdsEmpty;
            holdsEmpty = true;
            return added;
        }
        int i = slot(slots, v);
        if (slots[i] == v) {
            return false;
        }
        slots[i] = v;
        if (++size * 2 > slots.length) {
            grow();
        }
        return true;
    }

    public boolean contains(long v) {
        return v == EMPTY ? holdsEmpty : slots[slot(slots, v)] == v;
    }

    /** Where v is, or the empty slot where it would go. */
    private static int slot(long[] slots, long v) {
        int mask = slots.length - 1;
        long h = v * 0x9E3779B97F4A7C15L;
        int i = (int) (h ^ (h >>> 32)) & mask;
        while (slots[i] != EMPTY && slots[i] != v) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private void grow() {
        long[] bigger = newSlots(slots.length * 2);
        for (long v : slots) {
            if (v != EMPTY) {
                bigger[slot(bigger, v)] = v;
            }
        }
        slots = bigger;
    }
}
