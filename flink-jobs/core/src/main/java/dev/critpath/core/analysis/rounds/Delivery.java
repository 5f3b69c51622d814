package dev.critpath.core.analysis.rounds;

import dev.critpath.core.analysis.align.ReceivedBytes;
import dev.critpath.core.analysis.align.Tx;
import java.util.PriorityQueue;

/**
 * What one endpoint's receiver could hand its application, arrival by arrival: bytes above a
 * hole wait until the hole is filled, so data delivered out of order counts from the arrival that
 * filled the last hole below it (its loss repair), not from its own arrival. The receiver's own
 * ACKs also fill holes whose filling no sensor saw (capture drops).
 */
final class Delivery {
    /** An arrival holding bytes above a hole. */
    private record Waiting(int node, Tx tx, long end) {
    }

    private final ReceivedBytes got = new ReceivedBytes();
    private final PriorityQueue<Waiting> waiting = new PriorityQueue<>((a, b) -> Long.compare(a.end(), b.end()));
    private final long[] deliveredAt;

    /** @param deliveredAt per transmission, written when its bytes become deliverable in order */
    Delivery(long[] deliveredAt) {
        this.deliveredAt = deliveredAt;
    }

    /**
     * The arrival {@code node} of {@code t} at time {@code at}; returns the node that made new
     * bytes deliverable (this one), or {@link Rounds#NO_NODE} when it brought nothing new or waits
     * above a hole.
     */
    int arrived(int node, Tx t, long at) {
        boolean fresh = got.add(t.seq(), t.end()) || t.newAtReceiver();
        if (!fresh) {
            return Rounds.NO_NODE;
        }
        if (t.end() > got.rcvNxt()) {
            waiting.add(new Waiting(node, t, t.end()));
            return Rounds.NO_NODE;
        }
        deliveredAt[t.idx()] = at;
        release(at);
        return node;
    }

    /**
     * The receiver sent an ACK for everything below {@code ack}; returns the latest arrival its
     * unseen hole fill made deliverable (at that arrival's own time), or {@link Rounds#NO_NODE}.
     */
    int acknowledged(long ack) {
        got.acknowledged(ack);
        return release(Tx.NONE);
    }

    /** Everything waiting below the in-order point is deliverable: at {@code at}, or NONE for its own arrival time. */
    private int release(long at) {
        int latest = Rounds.NO_NODE;
        long latestArr = Long.MIN_VALUE;
        while (!waiting.isEmpty() && waiting.peek().end() <= got.rcvNxt()) {
            Waiting w = waiting.poll();
            deliveredAt[w.tx().idx()] = at != Tx.NONE ? at : w.tx().arr();
            if (w.tx().arr() > latestArr) {
                latestArr = w.tx().arr();
                latest = w.node();
            }
        }
        return at != Tx.NONE ? Rounds.NO_NODE : latest;
    }
}
