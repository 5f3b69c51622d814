package dev.critpath.core.analysis.rounds;

import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.sender.SenderMarks;
import dev.critpath.core.event.TcpFlags;

/**
 * With one capture, which local packet each reply of the unwatched end answers, told by what the
 * reply acknowledges rather than by the estimated times alone: on a queued or jittery path the
 * latest packet estimated to have arrived may still have been in the queue when the reply left.
 * <ul>
 * <li>a reply acknowledging up to A answers the last copy of bytes below A that could have arrived
 * (the one that moved the cumulative ACK there, or filled the last hole below it);</li>
 * <li>a duplicate ACK with SACK answers the newest copy inside its first block (RFC 2018: the
 * most recently received);</li>
 * <li>the k-th duplicate ACK without SACK answers the k-th copy to arrive above the hole;</li>
 * <li>an ACK drawn by a keep-alive or window probe (one byte below the ACK, or none) answers the probe.</li>
 * </ul>
 * A copy could have arrived when its estimated arrival is no later than the reply's estimated
 * departure; copies marked lost never arrived.
 */
final class AckEvidence {
    /** How far back (in arrived copies) a reply's answer may lie: a window's worth of flight. */
    private static final int SCAN_LIMIT = 4096;

    private final Tx[] txs;
    private final SenderMarks marks;
    /** The local copies that arrived so far, in time order. */
    private final Tx[] arrivals;
    private int arrived;
    private final LowEnds lowEnds;
    private long highestAck = Long.MIN_VALUE;
    /**
     * Where among the arrived copies the ACK last advanced (just after the copy that moved it),
     * and the duplicates since. Copies above the hole that the estimates put before that ACK's
     * departure count too: the copy moving the ACK arrived first, the estimates merely swap them.
     */
    private int advancedAt;
    private int duplicates;

    /** @param events the unwatched end's events in time order (see {@link Rounds}): the copies arriving there and its replies */
    AckEvidence(Tx[] txs, int[] events, SenderMarks marks) {
        this.txs = txs;
        this.marks = marks;
        int arrivalNodes = 0;
        for (int node : events) {
            arrivalNodes += Rounds.isArrival(node) ? 1 : 0;
        }
        arrivals = new Tx[arrivalNodes];
        lowEnds = new LowEnds(arrivals);
    }

    /**
     * The unwatched end's next event, in time order: for a reply, the local transmission it
     * answers; {@link Rounds#NO_NODE} for an arrival, or when the reply's ACK tells nothing.
     */
    int next(int node) {
        Tx t = txs[node >> 1];
        if (Rounds.isArrival(node)) {
            if (t.p.carriesSeqSpace() || marks.isProbe(t)) {
                arrivals[arrived] = t;
                lowEnds.arrived(arrived++);
            }
            return Rounds.NO_NODE;
        }
        if (!t.has(TcpFlags.ACK)) {
            return Rounds.NO_NODE;
        }
        long ack = t.p.ack;
        long[] sack = t.p.sack;
        Tx answered;
        if (ack > highestAck || t.p.len > 0 || !marks.duplicateAck(t)) {
            int below = lowEnds.latestBelow(arrived, ack);
            answered = below < 0 ? null : arrivals[below];
            if (ack > highestAck) {
                highestAck = ack;
                advancedAt = below < 0 ? arrived : below + 1;
                duplicates = 0;
            }
        } else if (sack != null && sack.length >= 2) {
            answered = latestWithin(arrivals, arrived, sack[0], sack[1]);
        } else {
            answered = nthAbove(arrivals, advancedAt, arrived, ack, ++duplicates);
        }
        return answered == null ? Rounds.NO_NODE : answered.idx();
    }

    /**
     * The arrived copies that end below every copy arrived after them, oldest first (so their ends
     * grow): the latest copy below an ACK is always one of them, found by binary search instead of
     * a scan back over the copies above it (a window's worth when the receiver's ACKs lag).
     */
    private static final class LowEnds {
        private final Tx[] arrivals;
        /** Places among the arrivals, and the ends of those copies. */
        private final int[] low;
        private final long[] lowEnd;
        private int size;

        LowEnds(Tx[] arrivals) {
            this.arrivals = arrivals;
            this.low = new int[arrivals.length];
            this.lowEnd = new long[arrivals.length];
        }

        /** The copy at this place has arrived, after every one before it. */
        void arrived(int place) {
            long end = arrivals[place].end();
            while (size > 0 && lowEnd[size - 1] >= end) {
                size--;
            }
            low[size] = place;
            lowEnd[size++] = end;
        }

        /** Where the latest of the first {@code arrived} copies carrying only bytes below {@code ack} is, if among the last SCAN_LIMIT of them; else -1. */
        int latestBelow(int arrived, long ack) {
            int lo = 0;
            int hi = size;
            while (lo < hi) { // the first ending above ack
                int mid = (lo + hi) >>> 1;
                if (lowEnd[mid] <= ack) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            return lo > 0 && low[lo - 1] >= arrived - SCAN_LIMIT ? low[lo - 1] : -1;
        }
    }

    private static Tx latestWithin(Tx[] arrivals, int arrived, long from, long to) {
        for (int i = arrived - 1; i >= 0 && i >= arrived - SCAN_LIMIT; i--) {
            Tx t = arrivals[i];
            if (t.seq() >= from && t.end() <= to) {
                return t;
            }
        }
        return null;
    }

    /** The n-th copy above the hole at {@code ack} to arrive since the ACK last advanced. */
    private static Tx nthAbove(Tx[] arrivals, int from, int arrived, long ack, int n) {
        int seen = 0;
        for (int i = from; i < arrived && i < from + SCAN_LIMIT; i++) {
            if (arrivals[i].seq() > ack && ++seen == n) {
                return arrivals[i];
            }
        }
        return null;
    }
}
