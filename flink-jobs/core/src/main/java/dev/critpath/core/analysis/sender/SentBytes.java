package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.TcpFlags;
import java.util.Arrays;
import java.util.List;

/** What one direction's sender sent, as a whole: its unique bytes and its segment size. */
final class SentBytes {
    private SentBytes() {
    }

    /**
     * Payload bytes in the union of sequence ranges seen in one direction (tcptrace's "unique
     * bytes"): a sweep over the ranges' starts and ends, each sorted on its own as primitives.
     */
    static long unique(List<Tx> txs, Direction dir) {
        long[] starts = new long[txs.size()];
        long[] ends = new long[txs.size()];
        int n = 0;
        for (Tx t : txs) {
            if (t.direction() == dir && t.p.len > 0) {
                long first = t.seq() + (t.has(TcpFlags.SYN) ? 1 : 0); // a SYN's data follows its own sequence number
                starts[n] = first;
                ends[n++] = first + t.p.len;
            }
        }
        Arrays.sort(starts, 0, n);
        Arrays.sort(ends, 0, n);
        long total = 0;
        long coveredFrom = 0;
        int open = 0;
        for (int i = 0, j = 0; j < n;) {
            if (i < n && starts[i] < ends[j]) { // a range ending where another starts closes first: the union is the same
                if (open++ == 0) {
                    coveredFrom = starts[i];
                }
                i++;
            } else {
                if (--open == 0) {
                    total += ends[j] - coveredFrom;
                }
                j++;
            }
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
