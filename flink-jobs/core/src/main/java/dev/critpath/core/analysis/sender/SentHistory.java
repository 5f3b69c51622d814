package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.TcpFlags;

/** Every transmission carrying sequence space (and each pure ACK that revealed unseen data), in departure order: what a re-send repeats, and whether "old" bytes are a reordered original. */
final class SentHistory {
    /** Earlier transmissions searched for the one a re-send repeats (re-sends are rare, so a bounded scan back is cheap). */
    private static final int SCAN_LIMIT = 65_536;

    private final Tx[] sent;
    private int count;

    /** @param sends how many transmissions the sender sent: each is added once at most */
    SentHistory(int sends) {
        sent = new Tx[sends];
    }

    void add(Tx t) {
        sent[count++] = t;
    }

    /** The latest earlier transmission containing byte seq, or -1. */
    int previousTransmission(long seq) {
        for (int i = count - 1; i >= Math.max(0, count - SCAN_LIMIT); i--) {
            Tx t = sent[i];
            if (t.seq() <= seq && seq < t.end()) {
                return t.idx();
            }
        }
        return -1;
    }

    /** The earliest data transmission at or above seq (or pure ACK whose sequence number showed unseen data below it), or null. */
    Tx firstAbove(long seq) {
        for (int i = 0; i < count; i++) {
            Tx t = sent[i];
            if (t.seq() >= seq && (t.p.len > 0 || t.isPureAck() || t.has(TcpFlags.FIN))) {
                return t;
            }
        }
        return null;
    }

    /**
     * Bytes below the highest sent that no earlier packet carried: the capture is not at the
     * sender (or missed the original). The copy that left earlier than the packets above it (by
     * its TCP timestamp, IP id or arrival within the reordering window) is the original, reordered
     * on the way; otherwise it re-sends an original lost before the capture point.
     *
     * @param minRtt the smallest round trip seen, µs, or -1
     */
    boolean reorderedOriginal(Tx s, long minRtt) {
        Tx above = firstAbove(s.end());
        if (above == null) {
            return false;
        }
        if (s.p.tsval >= 0 && above.p.tsval >= 0 && s.p.tsval != above.p.tsval) {
            return (int) (s.p.tsval - above.p.tsval) < 0; // one timestamp tick holds both: the IP id or the timing decides
        }
        if (s.p.ipId > 0 && above.p.ipId > 0) {
            return (short) (s.p.ipId - above.p.ipId) < 0; // per-socket counters (Linux, BSD) increase
        }
        long reorderWindow = Math.max(3_000, minRtt > 0 ? minRtt / 4 : 0); // tshark also calls it out of order within 3 ms
        return s.dep() - above.dep() <= reorderWindow;
    }
}
