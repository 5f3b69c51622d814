package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.sender.SenderMarks;
import dev.critpath.core.analysis.sender.TxKind;
import dev.critpath.core.event.TcpFlags;
import java.util.Arrays;

/**
 * Link capacity from packet pairs (Keshav; Dovrolis, Ramanathan and Moore): data an ACK released
 * together leaves back to back, so the spacing of two such packets where a capture saw them is the
 * payload of the second over the rate of the slowest link they crossed before it. The median of
 * those rates over a direction's pairs; the departures' spacing is the sender's own link, the
 * arrivals' the path's bottleneck.
 */
final class PacketPairs {
    /** Fewer pairs than this say nothing about a link. */
    static final int MIN_PAIRS = 5;
    static final double UNKNOWN = -1;

    private PacketPairs() {
    }

    /** The direction's data transmissions whose departures a capture saw, in departure order, of every data transmission's in that order. */
    static Tx[] departures(Tx[] dataByDep, Direction dir) {
        boolean c2s = dir == Direction.C2S;
        int n = 0;
        for (Tx t : dataByDep) {
            if (t.c2s() == c2s && !t.depEstimated()) {
                n++;
            }
        }
        Tx[] out = new Tx[n];
        n = 0;
        for (Tx t : dataByDep) {
            if (t.c2s() == c2s && !t.depEstimated()) {
                out[n++] = t;
            }
        }
        return out;
    }

    /** Payload bytes per µs the direction's sender's own link carries, or {@link #UNKNOWN}. */
    static double sendingRate(Tx[] departures, SenderMarks marks) {
        return median(departures, departures.length, marks, true);
    }

    /**
     * Payload bytes per µs the direction's path delivers to the receiver, or {@link #UNKNOWN}: from
     * the data's arrivals where a capture saw them, else from the ACKs coming back to the sender
     * (the receiver acknowledges at the rate the data reaches it: the bytes two consecutive ACKs
     * acknowledge over the time between them).
     *
     * @param acks the ACKs that reached the direction's sender, in arrival order
     */
    static double deliveryRate(Tx[] txs, Direction dir, Tx[] acks, SenderMarks marks) {
        boolean c2s = dir == Direction.C2S;
        Tx[] arrivals = new Tx[txs.length];
        int n = 0;
        for (Tx t : txs) {
            if (t.c2s() == c2s && t.isData() && t.arr() != Tx.NONE && !t.arrEstimated()) {
                arrivals[n++] = t;
            }
        }
        arrivals = Arrays.copyOf(arrivals, n);
        InOrder.sortBy(arrivals, Tx::arr);
        double fromData = median(arrivals, n, marks, false);
        return fromData != UNKNOWN ? fromData : ackRate(txs, dir, acks, marks);
    }

    /** Consecutive ACKs of data an ACK released together: the bytes between them over their spacing. */
    private static double ackRate(Tx[] txs, Direction dir, Tx[] acks, SenderMarks marks) {
        EndingAt endingAt = new EndingAt(txs, dir, marks);
        double[] rates = new double[acks.length];
        int n = 0;
        Tx before = null;
        for (Tx ack : acks) {
            if (ack.arrEstimated()) {
                continue; // no time to measure from
            }
            if (before != null) {
                long acked = ack.p.ack - before.p.ack;
                long gap = ack.arr() - before.arr();
                Tx first = endingAt.last(before.p.ack);
                Tx last = endingAt.last(ack.p.ack);
                if (acked > 0 && gap > 0 && first != null && last != null && marks.liberator(first) == marks.liberator(last)) {
                    rates[n++] = (double) acked / gap;
                }
            }
            before = ack;
        }
        return median(rates, n);
    }

    /** The direction's new data by where it ends; of several ending at the same place, the last in the timeline's order. */
    private static final class EndingAt {
        private final Tx[] byEnd;

        EndingAt(Tx[] txs, Direction dir, SenderMarks marks) {
            boolean c2s = dir == Direction.C2S;
            Tx[] data = new Tx[txs.length];
            int n = 0;
            for (Tx t : txs) {
                if (t.c2s() == c2s && marks.isNewData(t)) {
                    data[n++] = t;
                }
            }
            byEnd = Arrays.copyOf(data, n);
            InOrder.sortBy(byEnd, Tx::end);
        }

        Tx last(long end) {
            int lo = 0;
            int hi = byEnd.length;
            while (lo < hi) { // the first ending beyond
                int mid = (lo + hi) >>> 1;
                if (byEnd[mid].end() <= end) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo > 0 && byEnd[lo - 1].end() == end ? byEnd[lo - 1] : null;
        }
    }

    /** Consecutive new data released by the same ACK (or both by none: the first flight), with time between them. */
    private static double median(Tx[] seq, int size, SenderMarks marks, boolean departures) {
        double[] rates = new double[size];
        int n = 0;
        for (int i = 1; i < size; i++) {
            Tx a = seq[i - 1];
            Tx b = seq[i];
            long gap = departures ? b.dep() - a.dep() : b.arr() - a.arr();
            if (gap > 0 && marks.kind(a) == TxKind.NEW_DATA && marks.kind(b) == TxKind.NEW_DATA && marks.liberator(a) == marks.liberator(b)) {
                rates[n++] = (double) b.p.len / gap;
            }
        }
        return median(rates, n);
    }

    private static double median(double[] rates, int n) {
        if (n < MIN_PAIRS) {
            return UNKNOWN;
        }
        Arrays.sort(rates, 0, n);
        return n % 2 == 1 ? rates[n / 2] : (rates[n / 2 - 1] + rates[n / 2]) / 2;
    }
}
