package dev.critpath.core.analysis.align;

import java.util.Map;
import java.util.TreeMap;

/** The byte ranges a receiver holds: everything below rcvNxt plus out-of-order islands. */
public final class ReceivedBytes {
    private long rcvNxt = Long.MIN_VALUE;
    private final TreeMap<Long, Long> islands = new TreeMap<>();

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
            long s = seq;
            long en = end;
            Map.Entry<Long, Long> left = islands.floorEntry(s);
            if (left != null && left.getValue() >= s) {
                s = left.getKey();
                en = Math.max(en, left.getValue());
                islands.remove(left.getKey());
            }
            Map.Entry<Long, Long> right;
            while ((right = islands.ceilingEntry(s)) != null && right.getKey() <= en) {
                en = Math.max(en, right.getValue());
                islands.remove(right.getKey());
            }
            islands.put(s, en);
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
        Map.Entry<Long, Long> e;
        while ((e = islands.firstEntry()) != null && e.getKey() <= rcvNxt) {
            rcvNxt = Math.max(rcvNxt, e.getValue());
            islands.pollFirstEntry();
        }
    }

    private boolean covered(long seq, long end) {
        if (islands.isEmpty()) { // the usual case: no boxed lookup
            return false;
        }
        if (seq < rcvNxt) {
            seq = rcvNxt;
        }
        Map.Entry<Long, Long> e = islands.floorEntry(seq);
        return e != null && e.getValue() >= end;
    }
}
