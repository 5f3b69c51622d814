package dev.critpath.core.analysis;

import java.util.Arrays;

/**
 * A binary min-heap of (key, value) pairs of longs, for per-packet queues without an object per
 * entry. Of entries with equal keys the heap's own sifting decides which comes out first, as in
 * java.util.PriorityQueue: the same sifts, so the queues that were PriorityQueues take ties as
 * they always have.
 */
public final class MinHeap {
    private static final long[] NONE = {};
    private long[] keys = NONE;
    private long[] values = NONE;
    private int size;

    public boolean isEmpty() {
        return size == 0;
    }

    public void add(long key, long value) {
        if (size == keys.length) {
            keys = Arrays.copyOf(keys, Math.max(8, 2 * size));
            values = Arrays.copyOf(values, keys.length);
        }
        int k = size++;
        while (k > 0) {
            int parent = (k - 1) >>> 1;
            if (key >= keys[parent]) {
                break;
            }
            keys[k] = keys[parent];
            values[k] = values[parent];
            k = parent;
        }
        keys[k] = key;
        values[k] = value;
    }

    /** The smallest key; the heap must not be empty. */
    public long firstKey() {
        return keys[0];
    }

    /** The value of the entry with the smallest key. */
    public long firstValue() {
        return values[0];
    }

    public void removeFirst() {
        int n = --size;
        long lastKey = keys[n];
        long lastValue = values[n];
        int k = 0;
        int half = n >>> 1;
        while (k < half) {
            int child = 2 * k + 1;
            int right = child + 1;
            if (right < n && keys[child] > keys[right]) {
                child = right;
            }
            if (lastKey <= keys[child]) {
                break;
            }
            keys[k] = keys[child];
            values[k] = values[child];
            k = child;
        }
        keys[k] = lastKey;
        values[k] = lastValue;
    }
}
