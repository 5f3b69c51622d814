package dev.critpath.core.analysis.rounds;

import dev.critpath.core.analysis.MinHeap;
import dev.critpath.core.analysis.align.ReceivedBytes;
import dev.critpath.core.analysis.align.Tx;

/**
 * What one endpoint's receiver could hand its application, arrival by arrival: bytes above a
 * hole wait until the hole is filled, so data delivered out of order counts from the arrival that
 * filled the last hole below it (its loss repair), not from its own arrival. The receiver's own
 * ACKs also fill holes whose filling no sensor saw (capture drops).
 */
final class Delivery {
    private final ReceivedBytes got = new ReceivedBytes();
    /** Arrivals holding bytes above a hole: their end, and their node. */
    private final MinHeap waiting = new MinHeap();
    private final Tx[] txs;
    private final int[] deliveredBy;

    /**
     * @param txs         the timeline's transmissions, indexed as nodes are
     * @param deliveredBy per transmission, written when its bytes become deliverable in order: the transmission whose arrival made them so
     */
    Delivery(Tx[] txs, int[] deliveredBy) {
        this.txs = txs;
        this.deliveredBy = deliveredBy;
    }

    /**
     * The arrival {@code node} of {@code t}; returns the node that made new bytes deliverable (this
     * one), or {@link Rounds#NO_NODE} when it brought nothing new or waits above a hole.
     */
    int arrived(int node, Tx t) {
        long end = t.end();
        boolean fresh = got.add(t.seq(), end) || t.newAtReceiver();
        if (!fresh) {
            return Rounds.NO_NODE;
        }
        if (end > got.rcvNxt()) {
            waiting.add(end, node);
            return Rounds.NO_NODE;
        }
        deliveredBy[t.idx()] = t.idx();
        release(t);
        return node;
    }

    /**
     * The receiver sent an ACK for everything below {@code ack}; returns the latest arrival its
     * unseen hole fill made deliverable (at that arrival's own time), or {@link Rounds#NO_NODE}.
     */
    int acknowledged(long ack) {
        got.acknowledged(ack);
        return release(null);
    }

    /** Everything waiting below the in-order point is deliverable: by {@code filler}'s arrival, or null for its own. */
    private int release(Tx filler) {
        int latest = Rounds.NO_NODE;
        long latestArr = Long.MIN_VALUE;
        while (!waiting.isEmpty() && waiting.firstKey() <= got.rcvNxt()) {
            int node = (int) waiting.firstValue();
            waiting.removeFirst();
            Tx w = txs[node >> 1];
            deliveredBy[w.idx()] = filler != null ? filler.idx() : w.idx();
            if (w.arr() > latestArr) {
                latestArr = w.arr();
                latest = node;
            }
        }
        return filler != null ? Rounds.NO_NODE : latest;
    }
}
