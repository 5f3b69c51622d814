package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.TcpFlags;

/** What one direction's sender sent, as a whole: its unique bytes and its segment size. */
final class SentBytes {
    private SentBytes() {
    }

    /** Payload bytes in the union of sequence ranges the sender's transmissions carried (tcptrace's "unique bytes"). */
    static long unique(Tx[] sent) {
        SeqRanges payload = new SeqRanges();
        for (Tx t : sent) {
            if (t.p.len > 0) {
                long first = t.seq() + (t.has(TcpFlags.SYN) ? 1 : 0); // a SYN's data follows its own sequence number
                payload.add(first, first + t.p.len);
            }
        }
        return payload.covered();
    }

    /** The sender's segment size: MSS option minus timestamps, else the largest segment seen. */
    static int segmentSize(int fromOptions, Tx[] sent) {
        if (fromOptions > 0) {
            return fromOptions;
        }
        int max = 0;
        for (Tx t : sent) {
            if (!t.p.offloadPiece) {
                max = Math.max(max, t.p.len);
            }
        }
        return max > 0 ? max : 1460;
    }
}
