package dev.critpath.core.analysis.profile;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.sender.SenderMarks;
import dev.critpath.core.analysis.sender.TxKind;

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

    /** A departure of the direction's data that a capture saw. */
    static boolean captured(Tx t, boolean c2s) {
        return t.c2s() == c2s && !t.depEstimated();
    }

    /**
     * Payload bytes per µs the direction's sender's own link carries, or {@link #UNKNOWN}.
     *
     * @param dataByDep every data transmission whose departure is known, in departure order
     */
    static double sendingRate(Tx[] dataByDep, Direction dir, SenderMarks marks) {
        boolean c2s = dir == Direction.C2S;
        int departures = 0;
        for (Tx t : dataByDep) {
            departures += captured(t, c2s) ? 1 : 0;
        }
        if (departures <= MIN_PAIRS) {
            return UNKNOWN; // too few pairs whatever they are
        }
        double[] rates = new double[departures - 1];
        int n = 0;
        Tx a = null;
        for (Tx b : dataByDep) {
            if (!captured(b, c2s)) {
                continue;
            }
            double rate = a == null ? UNKNOWN : pairRate(a, b, b.dep() - a.dep(), marks);
            if (rate != UNKNOWN) {
                rates[n++] = rate;
            }
            a = b;
        }
        return median(rates, n);
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
        Tx[] arrivals = Tx.picked(txs, t -> seenArriving(t, c2s), Tx::arr);
        int n = arrivals.length;
        double[] rates = new double[n];
        int pairs = 0;
        for (int i = 1; i < n; i++) {
            double rate = pairRate(arrivals[i - 1], arrivals[i], arrivals[i].arr() - arrivals[i - 1].arr(), marks);
            if (rate != UNKNOWN) {
                rates[pairs++] = rate;
            }
        }
        double fromData = median(rates, pairs);
        return fromData != UNKNOWN ? fromData : ackRate(txs, dir, acks, marks);
    }

    /** Data of the direction whose arrival a capture saw. */
    private static boolean seenArriving(Tx t, boolean c2s) {
        return t.c2s() == c2s && t.isData() && t.arr() != Tx.NONE && !t.arrEstimated();
    }

    /** Consecutive ACKs of data an ACK released together: the bytes between them over their spacing. */
    private static double ackRate(Tx[] txs, Direction dir, Tx[] acks, SenderMarks marks) {
        EndingAt endingAt = new EndingAt(txs, dir, marks);
        double[] rates = new double[acks.length];
        int n = 0;
        Tx before = null;
        Tx first = null; // the new data ending where before acknowledged
        for (Tx ack : acks) {
            if (ack.arrEstimated()) {
                continue; // no time to measure from
            }
            Tx last = endingAt.last(ack.p.ack);
            if (before != null) {
                long acked = ack.p.ack - before.p.ack;
                long gap = ack.arr() - before.arr();
                if (acked > 0 && gap > 0 && first != null && last != null && marks.liberator(first) == marks.liberator(last)) {
                    rates[n++] = (double) acked / gap;
                }
            }
            before = ack;
            first = last;
        }
        return median(rates, n);
    }

    /** The direction's new data by where it ends; of several ending at the same place, the last in the timeline's order. */
    private static final class EndingAt {
        private final Tx[] byEnd;
        /** The first place ending beyond the end looked up last: ACKs mostly grow, so the next is found from there. */
        private int beyond;

        EndingAt(Tx[] txs, Direction dir, SenderMarks marks) {
            boolean c2s = dir == Direction.C2S;
            byEnd = Tx.picked(txs, t -> t.c2s() == c2s && marks.isNewData(t), Tx::end);
        }

        Tx last(long end) {
            if (beyond > 0 && byEnd[beyond - 1].end() > end) {
                beyond = 0; // an ACK below the last: search again from the start
                int hi = byEnd.length;
                while (beyond < hi) {
                    int mid = (beyond + hi) >>> 1;
                    if (byEnd[mid].end() <= end) {
                        beyond = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
            }
            while (beyond < byEnd.length && byEnd[beyond].end() <= end) {
                beyond++;
            }
            return beyond > 0 && byEnd[beyond - 1].end() == end ? byEnd[beyond - 1] : null;
        }
    }

    /** What a packet pair says: new data released by the same ACK (or both by none: the first flight), {@code gap} µs apart; or UNKNOWN. */
    private static double pairRate(Tx a, Tx b, long gap, SenderMarks marks) {
        boolean pair = gap > 0 && marks.kind(a) == TxKind.NEW_DATA && marks.kind(b) == TxKind.NEW_DATA && marks.liberator(a) == marks.liberator(b);
        return pair ? (double) b.p.len / gap : UNKNOWN;
    }

    /** The median of the first n rates (they are reordered), or UNKNOWN for too few: order statistics by selection, not a sort. */
    static double median(double[] rates, int n) {
        if (n < MIN_PAIRS) {
            return UNKNOWN;
        }
        double upper = select(rates, n, n / 2);
        if (n % 2 == 1) {
            return upper;
        }
        double lower = rates[0]; // the largest of those below the upper middle, which selection left before it
        for (int i = 1; i < n / 2; i++) {
            lower = Math.max(lower, rates[i]);
        }
        return (lower + upper) / 2;
    }

    /** The k-th smallest of a[0, n) (Hoare's FIND, as Wirth writes it); afterwards a[0, k) holds no value above it and a[k] is it. */
    private static double select(double[] a, int n, int k) {
        int lo = 0;
        int hi = n - 1;
        while (lo < hi) {
            double pivot = a[k];
            int i = lo;
            int j = hi;
            do {
                while (a[i] < pivot) {
                    i++;
                }
                while (pivot < a[j]) {
                    j--;
                }
                if (i <= j) {
                    double swap = a[i];
                    a[i] = a[j];
                    a[j] = swap;
                    i++;
                    j--;
                }
            } while (i <= j);
            if (j < k) {
                lo = i;
            }
            if (k < i) {
                hi = j;
            }
        }
        return a[k];
    }
}
