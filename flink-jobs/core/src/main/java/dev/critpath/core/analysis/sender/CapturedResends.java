package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.align.Tx;

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

    static long count(Tx[] txs, Direction dir, SenderMarks marks) {
        SeqRanges carried = new SeqRanges(); // sequence ranges captured so far
        long count = 0;
        boolean frameCounted = false;
        for (Tx t : inCaptureOrder(txs, dir)) {
            if (!carries(t, dir)) {
                continue;
            }
            if (!t.p.laterPiece) {
                frameCounted = false;
            }
            if (!frameCounted && marks.kind(t) == TxKind.RETRANSMISSION && carried.overlaps(t.seq(), t.end())) {
                count++;
                frameCounted = true;
            }
            carried.add(t.seq(), t.end());
        }
        return count;
    }

    /**
     * Transmissions holding the direction's in the order they were captured, stable (a
     * super-segment's pieces stay together): the timeline itself when they are in that order in it.
     */
    private static Tx[] inCaptureOrder(Tx[] txs, Direction dir) {
        int n = 0;
        long last = Long.MIN_VALUE;
        boolean ordered = true;
        for (Tx t : txs) {
            if (carries(t, dir)) {
                n++;
                ordered &= TxTime.CAPTURE.of(t) >= last;
                last = TxTime.CAPTURE.of(t);
            }
        }
        if (ordered) {
            return txs;
        }
        Tx[] sent = new Tx[n];
        n = 0;
        for (Tx t : txs) {
            if (carries(t, dir)) {
                sent[n++] = t;
            }
        }
        TxTime.CAPTURE.sort(sent);
        return sent;
    }

    private static boolean carries(Tx t, Direction dir) {
        return t.direction() == dir && t.p.carriesSeqSpace();
    }
}
