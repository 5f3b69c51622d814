package dev.critpath.core.analysis.rounds;

import dev.critpath.core.analysis.Endpoint;
import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.analysis.sender.SenderMarks;
import dev.critpath.core.event.TcpFlags;
import java.util.Arrays;

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

    static AckEvidence of(Tx[] txs, Endpoint unwatched, SenderMarks marks) {
        int[] trigger = new int[txs.length];
        Arrays.fill(trigger, Rounds.NO_NODE);
        int arrivalCount = 0;
        int replyCount = 0;
        for (Tx t : txs) {
            if (arrived(t, unwatched, marks)) {
                arrivalCount++;
            } else if (reply(t, unwatched)) {
                replyCount++;
            }
        }
        Tx[] arrivals = new Tx[arrivalCount];
        Tx[] replies = new Tx[replyCount];
        arrivalCount = 0;
        replyCount = 0;
        for (Tx t : txs) {
            if (arrived(t, unwatched, marks)) {
                arrivals[arrivalCount++] = t;
            } else if (reply(t, unwatched)) {
                replies[replyCount++] = t;
            }
        }
        InOrder.sortBy(arrivals, Tx::arr);
        InOrder.sortBy(replies, Tx::dep);
        int arrived = 0;
        long highestAck = Long.MIN_VALUE;
        int advancedAt = 0;
        int duplicates = 0;
        for (Tx reply : replies) {
            while (arrived < arrivals.length && arrivals[arrived].arr() <= reply.dep()) {
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

    /** A local copy carrying sequence space (or a probe) that reached the unwatched end. */
    private static boolean arrived(Tx t, Endpoint unwatched, SenderMarks marks) {
        return t.c2s() != (unwatched == Endpoint.CLIENT) && (t.p.carriesSeqSpace() || marks.isProbe(t)) && t.arr() != Tx.NONE && !marks.lost(t);
    }

    /** An ACK the unwatched end sent. */
    private static boolean reply(Tx t, Endpoint unwatched) {
        return t.c2s() == (unwatched == Endpoint.CLIENT) && t.has(TcpFlags.ACK) && t.dep() != Tx.NONE;
    }

    /** The latest of the first {@code arrived} copies carrying only bytes below {@code ack}. */
    private static Tx latestBelow(Tx[] arrivals, int arrived, long ack) {
        for (int i = arrived - 1; i >= 0 && i >= arrived - SCAN_LIMIT; i--) {
            if (arrivals[i].end() <= ack) {
                return arrivals[i];
            }
        }
        return null;
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
