package dev.critpath.core.analysis.align;

import dev.critpath.core.analysis.SeqRanges;

/** The byte ranges a receiver holds: everything below rcvNxt plus out-of-order islands. */
public final class ReceivedBytes {
    private long rcvNxt = Long.MIN_VALUE;
    /** The islands above rcvNxt; made at the first. */
    private SeqRanges islands;

    /** Records [seq, end); true when any of it was not held before. */
    public boolean add(long seq, long end) {
        if (rcvNxt == Long.MIN_VALUE) {
            rcvNxt = seq;
        }
        if (end <= rcvNxt || islands != null && islands.covers(Math.max(seq, rcvNxt), end)) {
            return false;
        }
        if (seq <= rcvNxt) {
            inOrderTo(end);
        } else {
            if (islands == null) {
                islands = new SeqRanges();
            }
            islands.add(seq, end);
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
        rcvNxt = islands == null ? end : islands.removeUpTo(end);
    }
}
