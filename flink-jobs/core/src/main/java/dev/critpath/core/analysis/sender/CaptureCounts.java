package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.DirectionStats;
import dev.critpath.core.analysis.SeqRanges;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.TcpFlags;

/**
 * A sender's counts as a tool that reads only the capture makes them, in one pass over its
 * transmissions in capture order: its unique bytes (tcptrace's "unique bytes"), the payload in
 * the union of the sequence ranges it carried; and its re-sends (tcptrace's "rexmt data pkts"),
 * captured packets that re-send sequence space (data, SYN, FIN) an earlier captured packet had
 * carried, a super-segment once. The kernel's count of re-sends differs where the capture hides
 * what the sender did: it counts each wire segment of a re-sent super-segment, and re-sends whose
 * earlier copies no sensor saw.
 */
final class CaptureCounts {
    private CaptureCounts() {
    }

    /** @param sent the sender's transmissions */
    static void count(Tx[] sent, SenderMarks marks, DirectionStats stats) {
        SeqRanges carried = new SeqRanges(); // sequence ranges captured so far
        SeqRanges payload = new SeqRanges();
        long resends = 0;
        boolean frameCounted = false;
        for (Tx t : TxTime.CAPTURE.sorted(sent)) { // stable: a super-segment's pieces stay together
            long seq = t.seq();
            long end = t.end();
            if (end <= seq) {
                continue; // carries no sequence space
            }
            if (!t.p.laterPiece) {
                frameCounted = false;
            }
            if (!frameCounted && marks.kind(t) == TxKind.RETRANSMISSION && carried.overlaps(seq, end)) {
                resends++;
                frameCounted = true;
            }
            carried.add(seq, end);
            if (t.p.len > 0) {
                long first = seq + (t.has(TcpFlags.SYN) ? 1 : 0); // a SYN's data follows its own sequence number
                payload.add(first, first + t.p.len);
            }
        }
        stats.retransmissionsOfCapturedData = resends;
        stats.bytes = payload.covered();
    }
}
