package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.analysis.align.Tx;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Re-sends as a tool that reads only the capture can count them (tcptrace's "rexmt data pkts"):
 * captured packets that re-send sequence space (data, SYN, FIN) an earlier captured packet had
 * carried, a super-segment once. The kernel's count differs where the capture hides what the
 * sender did: it counts each wire segment of a re-sent super-segment, and re-sends whose earlier
 * copies no sensor saw.
 */
final class CapturedResends {
    private CapturedResends() {
    }

    static long count(List<Tx> txs, Direction dir, SenderMarks marks) {
        List<Tx> sent = new ArrayList<>();
        for (Tx t : txs) {
            if (t.direction() == dir && t.p.carriesSeqSpace()) {
                sent.add(t);
            }
        }
        InOrder.sortBy(sent, CapturedResends::capturedAt); // stable: a super-segment's pieces stay together
        TreeMap<Long, Long> carried = new TreeMap<>(); // disjoint sequence ranges captured so far, start to end
        long count = 0;
        boolean frameCounted = false;
        for (Tx t : sent) {
            if (!t.p.laterPiece) {
                frameCounted = false;
            }
            if (!frameCounted && marks.kind(t) == TxKind.RETRANSMISSION && overlaps(carried, t.seq(), t.end())) {
                count++;
                frameCounted = true;
            }
            add(carried, t.seq(), t.end());
        }
        return count;
    }

    /** When the first sensor to see it captured it. */
    private static long capturedAt(Tx t) {
        return t.dep() != Tx.NONE && !t.depEstimated() ? t.dep() : t.arr();
    }

    private static boolean overlaps(TreeMap<Long, Long> ranges, long start, long end) {
        Map.Entry<Long, Long> below = ranges.floorEntry(end - 1);
        return below != null && below.getValue() > start;
    }

    private static void add(TreeMap<Long, Long> ranges, long start, long end) {
        Map.Entry<Long, Long> before = ranges.floorEntry(start);
        if (before != null && before.getValue() >= start) {
            start = before.getKey();
            end = Math.max(end, before.getValue());
        }
        for (Map.Entry<Long, Long> next = ranges.ceilingEntry(start); next != null && next.getKey() <= end; next = ranges.ceilingEntry(start)) {
            end = Math.max(end, next.getValue());
            ranges.remove(next.getKey());
        }
        ranges.put(start, end);
    }
}
