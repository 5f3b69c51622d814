package dev.critpath.core.analysis.align;

import java.util.Arrays;

/** The byte ranges a receiver holds: everything below rcvNxt plus out-of-order islands. */
public final class ReceivedBytes {
    private long rcvNxt = Long.MIN_VALUE;
    /** The islands [starts[i], ends[i]) above rcvNxt, in order, apart from each other; made at the first. */
    private long[] starts;
    private long[] ends;
    private int islands;

    /** Records [seq, end); true when any of it was not held before. */
    public boolean add(long seq, long end) {
        if (rcvNxt == Long.MIN_VALUE) {
            rcvNxt = seq;
        }
        if (end <= rcvNxt || covered(seq, end)) {
            return false;
        }
        if (seq <= rcvNxt) {
            inOrderTo(end);
        } else {
            island(seq, end);
        }
        return true;
    }

    /** Next byte expected in order. */
    public long rcvNxt() {
        return rcvNxt;
    }

    /** The receiver acknowledged everything below ack: it holds those bytes, whether or not their arrival was seen. */
    public void acknowledged(long ack) {
        if (rcvNxt == Long.MIN_VALUE || ack > rcvNxt) {
            inOrderTo(ack);
        }
    }

    /** Everything below end is held; swallows the islands the in-order data now reaches. */
    private void inOrderTo(long end) {
        rcvNxt = end;
        int swallowed = 0;
        while (swallowed < islands && starts[swallowed] <= rcvNxt) {
            rcvNxt = Math.max(rcvNxt, ends[swallowed++]);
        }
        if (swallowed > 0) {
            replace(0, swallowed, 0);
        }
    }

    /** [seq, end) above rcvNxt, merged with the islands it overlaps or touches. */
    private void island(long seq, long end) {
        if (starts == null) {
            starts = new long[4];
            ends = new long[4];
        }
        long s = seq;
        long en = end;
        int left = lastStartingAtOrBelow(s);
        int from = left + 1;
        if (left >= 0 && ends[left] >= s) {
            s = starts[left];
            en = Math.max(en, ends[left]);
            from = left;
        }
        int to = left + 1;
        while (to < islands && starts[to] <= en) {
            en = Math.max(en, ends[to++]);
        }
        replace(from, to, 1);
        starts[from] = s;
        ends[from] = en;
    }

    /** Makes room for `count` islands in place of those in [from, to). */
    private void replace(int from, int to, int count) {
        int after = islands - to;
        if (islands - (to - from) + count > starts.length) {
            starts = Arrays.copyOf(starts, starts.length * 2);
            ends = Arrays.copyOf(ends, ends.length * 2);
        }
        System.arraycopy(starts, to, starts, from + count, after);
        System.arraycopy(ends, to, ends, from + count, after);
        islands += count - (to - from);
    }

    /** The last island starting at or below seq, or -1. */
    private int lastStartingAtOrBelow(long seq) {
        int at = Arrays.binarySearch(starts, 0, islands, seq); // starts rise strictly: merged ranges never share one
        return at >= 0 ? at : -at - 2;
    }

    private boolean covered(long seq, long end) {
        if (islands == 0) {
            return false;
        }
        int i = lastStartingAtOrBelow(Math.max(seq, rcvNxt));
        return i >= 0 && ends[i] >= end;
    }
}
