package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.analysis.align.Timeline;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.sender.SenderMarks;
import dev.critpath.core.analysis.sender.TxKind;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

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

    /** The direction's data transmissions whose departures a capture saw, in departure order. */
    static List<Tx> departures(Timeline tl, Direction dir) {
        List<Tx> out = new ArrayList<>();
        for (Tx t : tl.txs) {
            if (t.direction() == dir && t.isData() && t.dep() != Tx.NONE && !t.depEstimated()) {
                out.add(t);
            }
        }
        InOrder.sortBy(out, Tx::dep);
        return out;
    }

    /** Payload bytes per µs the direction's sender's own link carries, or {@link #UNKNOWN}. */
    static double sendingRate(List<Tx> departures, SenderMarks marks) {
        return median(departures, marks, true);
    }

    /**
     * Payload bytes per µs the direction's path delivers to the receiver, or {@link #UNKNOWN}: from
     * the data's arrivals where a capture saw them, else from the ACKs coming back to the sender
     * (the receiver acknowledges at the rate the data reaches it: the bytes two consecutive ACKs
     * acknowledge over the time between them).
     */
    static double deliveryRate(Timeline tl, Direction dir, SenderMarks marks) {
        List<Tx> arrivals = new ArrayList<>();
        List<Tx> acks = new ArrayList<>();
        for (Tx t : tl.txs) {
            if (t.direction() == dir && t.isData() && t.arr() != Tx.NONE && !t.arrEstimated()) {
                arrivals.add(t);
            } else if (t.direction() != dir && t.has(TcpFlags.ACK) && t.arr() != Tx.NONE && !t.arrEstimated()) {
                acks.add(t);
            }
        }
        InOrder.sortBy(arrivals, Tx::arr);
        double fromData = median(arrivals, marks, false);
        return fromData != UNKNOWN ? fromData : ackRate(tl, dir, acks, marks);
    }

    /** Consecutive ACKs of data an ACK released together: the bytes between them over their spacing. */
    private static double ackRate(Timeline tl, Direction dir, List<Tx> acks, SenderMarks marks) {
        Map<Long, Tx> endingAt = new HashMap<>();
        for (Tx t : tl.txs) {
            if (t.direction() == dir && marks.isNewData(t)) {
                endingAt.put(t.end(), t);
            }
        }
        InOrder.sortBy(acks, Tx::arr);
        double[] rates = new double[acks.size()];
        int n = 0;
        for (int i = 1; i < acks.size(); i++) {
            long acked = acks.get(i).p.ack - acks.get(i - 1).p.ack;
            long gap = acks.get(i).arr() - acks.get(i - 1).arr();
            Tx before = endingAt.get(acks.get(i - 1).p.ack);
            Tx last = endingAt.get(acks.get(i).p.ack);
            if (acked > 0 && gap > 0 && before != null && last != null && marks.liberator(before) == marks.liberator(last)) {
                rates[n++] = (double) acked / gap;
            }
        }
        return median(rates, n);
    }

    /** Consecutive new data released by the same ACK (or both by none: the first flight), with time between them. */
    private static double median(List<Tx> seq, SenderMarks marks, boolean departures) {
        double[] rates = new double[seq.size()];
        int n = 0;
        for (int i = 1; i < seq.size(); i++) {
            Tx a = seq.get(i - 1);
            Tx b = seq.get(i);
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
