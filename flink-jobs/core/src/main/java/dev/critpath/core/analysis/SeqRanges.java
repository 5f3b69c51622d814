package dev.critpath.core.analysis;

import java.util.Arrays;

/**
 * A union of sequence ranges [start, end) as disjoint ranges sorted by start, in two arrays of
 * primitives: ranges that overlap or touch merge as they are added. A sender's ranges mostly
 * come in order, so an addition mostly extends the last range.
 */
public final class SeqRanges {
    private long[] starts = new long[4];
    private long[] ends = new long[4];
    private int count;

    /** Whether a range holds a byte of [start, end). */
    public boolean overlaps(long start, long end) {
        int below = lastStartingAtOrBelow(end - 1);
        return below >= 0 && ends[below] > start;
    }

    /** Whether one range holds all of [start, end). */
    public boolean covers(long start, long end) {
        int below = lastStartingAtOrBelow(start);
        return below >= 0 && ends[below] >= end;
    }

    /**
     * Drops the ranges starting at or below {@code seq} and gives the end of what they and
     * [.., seq) cover together: a receiver's next expected byte once in-order data reaches seq.
     */
    public long removeUpTo(long seq) {
        int n = lastStartingAtOrBelow(seq) + 1;
        if (n == 0) {
            return seq;
        }
        long reached = Math.max(seq, ends[n - 1]); // the next range starts above it: merged ranges never touch
        System.arraycopy(starts, n, starts, 0, count - n);
        System.arraycopy(ends, n, ends, 0, count - n);
        count -= n;
        return reached;
    }

    public void add(long start, long end) {
        int last = count - 1;
        if (last >= 0 && starts[last] <= start && start <= ends[last]) { // the common case: it extends the last range
            ends[last] = Math.max(ends[last], end);
            return;
        }
        int first = lastStartingAtOrBelow(start);
        if (first >= 0 && ends[first] >= start) {
            start = starts[first];
        } else {
            first++;
        }
        int after = first; // the first range the new one does not reach
        while (after < count && starts[after] <= end) {
            end = Math.max(end, ends[after]);
            after++;
        }
        if (after == first) {
            insertAt(first);
        } else if (after > first + 1) {
            System.arraycopy(starts, after, starts, first + 1, count - after);
            System.arraycopy(ends, after, ends, first + 1, count - after);
            count -= after - first - 1;
        }
        starts[first] = start;
        ends[first] = end;
    }

    /** The bytes the ranges cover together. */
    public long covered() {
        long total = 0;
        for (int i = 0; i < count; i++) {
            total += ends[i] - starts[i];
        }
        return total;
    }

    private void insertAt(int i) {
        if (count == starts.length) {
            starts = Arrays.copyOf(starts, count * 2);
            ends = Arrays.copyOf(ends, count * 2);
        }
        System.arraycopy(starts, i, starts, i + 1, count - i);
        System.arraycopy(ends, i, ends, i + 1, count - i);
        count++;
    }

    /** The last range starting at or below seq, or -1. */
    private int lastStartingAtOrBelow(long seq) {
        if (count > 0 && starts[count - 1] <= seq) {
            return count - 1;
        }
        int at = Arrays.binarySearch(starts, 0, count, seq); // starts rise strictly: merged ranges never share one
        return at >= 0 ? at : -at - 2;
    }
}
