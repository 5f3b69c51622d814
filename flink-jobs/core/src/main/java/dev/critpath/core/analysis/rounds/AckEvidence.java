package dev.critpath.core.analysis.rounds;

import dev.critpath.core.analysis.Endpoint;
import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.sender.SenderMarks;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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
    /** Arrived copies scanned back per reply at most: a window's worth of flight. */
    private static final int SCAN_LIMIT = 4096;

    private final int[] trigger;

    private AckEvidence(int[] trigger) {
        this.trigger = trigger;
    }

    /** The local transmission a departure of the unwatched end answers, or {@link Rounds#NO_NODE} when its ACK tells nothing. */
    int triggerOf(Tx reply) {
        return trigger[reply.idx()];
    }

    static AckEvidence of(List<Tx> txs, Endpoint unwatched, SenderMarks marks) {
        int[] trigger = new int[txs.size()];
        Arrays.fill(trigger, Rounds.NO_NODE);
        List<Tx> arrivals = new ArrayList<>();
        List<Tx> replies = new ArrayList<>();
        for (Tx t : txs) {
            boolean fromRemote = t.direction().sender() == unwatched;
            if (!fromRemote && (t.p.carriesSeqSpace() || marks.isProbe(t)) && t.arr() != Tx.NONE && !marks.lost(t)) {
                arrivals.add(t);
            } else if (fromRemote && t.has(TcpFlags.ACK) && t.dep() != Tx.NONE) {
                replies.add(t);
            }
        }
        InOrder.sortBy(arrivals, Tx::arr);
        InOrder.sortBy(replies, Tx::dep);
        int arrived = 0;
        long highestAck = Long.MIN_VALUE;
        int advancedAt = 0;
        int duplicates = 0;
        for (Tx reply : replies) {
            while (arrived < arrivals.size() && arrivals.get(arrived).arr() <= reply.dep()) {
                arrived++;
            }
            long ack = reply.p.ack;
            long[] sack = reply.p.sack;
            Tx answered;
            if (ack > highestAck || reply.p.len > 0 || !marks.duplicateAck(reply)) {
                answered = latestBelow(arrivals, arrived, ack);
                if (ack > highestAck) {
                    highestAck = ack;
                    advancedAt = arrived;
                    duplicates = 0;
                }
            } else if (sack != null && sack.length >= 2) {
                answered = latestWithin(arrivals, arrived, sack[0], sack[1]);
            } else {
                answered = nthAbove(arrivals, advancedAt, arrived, ack, ++duplicates);
            }
            if (answered != null) {
                trigger[reply.idx()] = answered.idx();
            }
        }
        return new AckEvidence(trigger);
    }

    /** The latest of the first {@code arrived} copies carrying only bytes below {@code ack}. */
    private static Tx latestBelow(List<Tx> arrivals, int arrived, long ack) {
        for (int i = arrived - 1; i >= 0 && i >= arrived - SCAN_LIMIT; i--) {
            if (arrivals.get(i).end() <= ack) {
                return arrivals.get(i);
            }
        }
        return null;
    }

    private static Tx latestWithin(List<Tx> arrivals, int arrived, long from, long to) {
        for (int i = arrived - 1; i >= 0 && i >= arrived - SCAN_LIMIT; i--) {
            Tx t = arrivals.get(i);
            if (t.seq() >= from && t.end() <= to) {
                return t;
            }
        }
        return null;
    }

    /** The n-th copy above the hole at {@code ack} to arrive since the ACK last advanced. */
    private static Tx nthAbove(List<Tx> arrivals, int from, int arrived, long ack, int n) {
        int seen = 0;
        for (int i = from; i < arrived && i < from + SCAN_LIMIT; i++) {
            if (arrivals.get(i).seq() > ack && ++seen == n) {
                return arrivals.get(i);
            }
        }
        return null;
    }
}
