package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
import java.util.List;

/** What one direction's sender sent, as a whole: its unique bytes and its segment size. */
final class SentBytes {
    private SentBytes() {
    }

    /** Payload bytes in the union of sequence ranges seen in one direction (tcptrace's "unique bytes"). */
    static long unique(List<Tx> txs, Direction dir) {
        List<long[]> ranges = new ArrayList<>();
        for (Tx t : txs) {
            if (t.direction() == dir && t.p.len > 0) {
                long first = t.seq() + (t.has(TcpFlags.SYN) ? 1 : 0); // a SYN's data follows its own sequence number
                ranges.add(new long[] {first, first + t.p.len});
            }
        }
        InOrder.sortBy(ranges, r -> r[0]);
        long total = 0;
        long coveredTo = Long.MIN_VALUE;
        for (long[] r : ranges) {
            long from = Math.max(r[0], coveredTo);
            if (r[1] > from) {
                total += r[1] - from;
            }
            coveredTo = Math.max(coveredTo, r[1]);
        }
        return total;
    }

    /** The sender's segment size: MSS option minus timestamps, else the largest segment seen. */
    static int segmentSize(int fromOptions, List<Tx> txs, Direction dir) {
        if (fromOptions > 0) {
            return fromOptions;
        }
        int max = 0;
        for (Tx t : txs) {
            if (t.direction() == dir && !t.p.offloadPiece) {
                max = Math.max(max, t.p.len);
            }
        }
        return max > 0 ? max : 1460;
    }
}
