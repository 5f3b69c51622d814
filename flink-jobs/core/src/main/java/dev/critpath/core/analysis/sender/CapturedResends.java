package dev.critpath.core.analysis.sender;

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

    /** @param sent the sender's transmissions */
    static long count(Tx[] sent, SenderMarks marks) {
        SeqRanges carried = new SeqRanges(); // sequence ranges captured so far
        long count = 0;
        boolean frameCounted = false;
        for (Tx t : TxTime.CAPTURE.sorted(sent)) { // stable: a super-segment's pieces stay together
            if (!t.p.carriesSeqSpace()) {
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
}
