package dev.critpath.core.analysis.align;

/**
 * Indices (of packets, of transmissions) with a key each (a time, a timestamp, a sequence
 * number), sorted by key, then index. A natural merge sort, since they come nearly in order
 * already; the arrays are kept for the thread's next connection (see {@link Workspace}), so
 * sorting allocates nothing once they are large enough.
 */
final class KeyedIndices {
    private static final int INITIAL = 64;

    long[] keys = new long[INITIAL];
    int[] indices = new int[INITIAL];
    int size;
    /** Where the last search ended. */
    private int lastFound;
    private long[] spareKeys = new long[INITIAL];
    private int[] spareIndices = new int[INITIAL];
    /** Where each run of ordered entries starts (the first at 0), then size. */
    private int[] runStarts = new int[INITIAL + 1];
    private int runs = 1;

    /** Empties it for up to n entries. */
    void clear(int n) {
        size = 0;
        runs = 1;
        lastFound = 0;
        if (!Workspace.fits(keys.length, n)) {
            int capacity = Workspace.capacity(keys.length, n);
            keys = new long[capacity];
            indices = new int[capacity];
            spareKeys = new long[capacity];
            spareIndices = new int[capacity];
            runStarts = new int[capacity + 1];
        }
    }

    void add(long key, int index) {
        if (size > 0 && before(key, index, keys[size - 1], indices[size - 1])) {
            runStarts[runs++] = size;
        }
        keys[size] = key;
        indices[size] = index;
        size++;
    }

    void sort() {
        runStarts[runs] = size;
        while (runs > 1) { // merge runs pairwise into the spare arrays, which then hold the entries
            int merged = 0;
            for (int r = 0; r < runs; r += 2) {
                int from = runStarts[r];
                int mid = runStarts[r + 1];
                merge(from, mid, r + 2 <= runs ? runStarts[r + 2] : mid);
                runStarts[merged++] = from;
            }
            runStarts[merged] = size;
            runs = merged;
            long[] k = keys;
            keys = spareKeys;
            spareKeys = k;
            int[] x = indices;
            indices = spareIndices;
            spareIndices = x;
        }
    }

    /** The ordered runs [from, mid) and [mid, to) into the spare arrays, as one. */
    private void merge(int from, int mid, int to) {
        int i = from;
        int j = mid;
        int out = from;
        while (i < mid && j < to) {
            if (before(keys[j], indices[j], keys[i], indices[i])) {
                spareKeys[out] = keys[j];
                spareIndices[out++] = indices[j++];
            } else {
                spareKeys[out] = keys[i];
                spareIndices[out++] = indices[i++];
            }
        }
        System.arraycopy(keys, i, spareKeys, out, mid - i);
        System.arraycopy(indices, i, spareIndices, out, mid - i);
        out += mid - i;
        System.arraycopy(keys, j, spareKeys, out, to - j);
        System.arraycopy(indices, j, spareIndices, out, to - j);
    }

    private static boolean before(long key, int index, long otherKey, int otherIndex) {
        return key < otherKey || key == otherKey && index < otherIndex;
    }

    /**
     * Position of the first entry whose key is at least key; size when none is. Searched outwards
     * from the last one found, then by halving: lookups that move on through the keys, as a
     * connection's do, take a step or two.
     */
    int firstAtLeast(long key) {
        int at = Math.min(lastFound, size);
        int lo;
        int hi;
        if (at < size && keys[at] < key) {
            lo = at + 1;
            hi = lo;
            for (int step = 1; hi < size && keys[hi] < key; step <<= 1) {
                lo = hi + 1;
                hi += step;
            }
            hi = Math.min(hi, size);
        } else {
            hi = at;
            lo = at - 1;
            for (int step = 1; lo >= 0 && keys[lo] >= key; step <<= 1) {
                hi = lo;
                lo -= step;
            }
            lo = Math.max(lo + 1, 0);
        }
        while (lo < hi) { // the answer lies in [lo, hi]
            int mid = (lo + hi) >>> 1;
            if (keys[mid] < key) {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lastFound = lo;
        return lo;
    }

    /** The lowest index with exactly this key, or -1. */
    int firstWith(long key) {
        int k = firstAtLeast(key);
        return k < size && keys[k] == key ? indices[k] : -1;
    }
}
