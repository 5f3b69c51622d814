package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.TcpFlags;

/**
 * The sender's side of an ACK's arrival: what it acknowledges, SACKs or duplicates, the
 * receiver's window it carries, the RTT sample it gives, and what the congestion state makes of it.
 */
final class AckArrivals {
    private final SenderState s;
    /** Shift the receiver applies to its advertised windows (its SYN's window scale); -1 unknown. */
    private final int rcvWscale;
    private final boolean sack;

    AckArrivals(SenderState s, int rcvWscale, boolean sack) {
        this.s = s;
        this.rcvWscale = rcvWscale;
        this.sack = sack;
    }

    void arrived(Tx a) {
        long t = a.arr();
        if (!a.has(TcpFlags.ACK)) {
            s.lastPeerSynAt = t; // the peer's SYN, which a SYN-ACK answers
            return;
        }
        long ack = a.p.ack;
        if (!s.established) {
            if (ack < 1) {
                return;
            }
            s.established = true;
            if (s.synSentAt != SenderState.NONE) {
                s.rtt.sample(t - s.synSentAt); // Linux times the handshake: the first RTO comes from it
            }
            s.una = 1;
            s.nxt = Math.max(s.nxt, 1);
            acknowledge(1, t);
            s.rwnd = window(a);
            s.recordEvent(a.idx(), true);
            s.lastAckTime = t;
            s.lastAckTx = a.idx();
            return;
        }
        if (a.p.len > 0) {
            s.peerDataSinceLastSend = true;
        }
        long prevRwnd = s.rwnd;
        s.pipeBeforeLastAck = s.scoreboard.pipe();
        s.rwnd = window(a);
        int newlySacked = a.p.sack == null || !sack ? 0 : s.scoreboard.sack(a.p.sack);
        boolean lossEvidence = newlySacked > 0;
        s.lastAckDelivered = newlySacked;
        if (ack > s.una) {
            long acked = acknowledge(ack, t);
            s.lastAckDelivered = sack ? acked + newlySacked : s.scoreboard.renoAcknowledged(acked);
            s.una = ack;
            s.unaMovedBy = a;
            s.timerArmedAt = t;
            if (s.cc.cumulativeAck(s.una, acked, s.lastAckDelivered, s.scoreboard.pipe(), !sack)) {
                lossEvidence = true; // partial ACK: the next hole is lost too (NewReno)
            } else {
                s.scoreboard.clearRenoSacked();
            }
        } else if (ack == s.una && a.p.len == 0 && !a.has(TcpFlags.SYN) && !a.has(TcpFlags.FIN)
                && s.nxt > s.una && (s.rwnd == prevRwnd || a.p.sack != null)) {
            s.stats.dupAcksReceived++;
            s.marks.countedDuplicate(a);
            lossEvidence = true;
            if (!sack) {
                s.scoreboard.duplicateAck();
            }
            s.lastAckDelivered = Math.max(1, newlySacked);
            s.cc.duplicateAck(s.lastAckDelivered, s.scoreboard.pipe());
        }
        if (lossEvidence) {
            s.lastLossEvidence = t;
        }
        if (lossEvidence || s.unaMovedBy == a) {
            s.lastAckNewsAt = t;
        }
        s.windows.ack(t, s.una, s.nxt, s.rwnd, s.cwndLimit());
        s.recordEvent(a.idx(), false);
        s.lastAckTime = t;
        s.lastAckTx = a.idx();
    }

    /**
     * The receiver's window in bytes; SYN segments are never scaled (RFC 7323). Caught mid-stream
     * the scale is unknown, so the window is too (-1) rather than wrongly tiny. A reset's window
     * field means nothing (stacks send 0), so it leaves the window as it was.
     */
    private long window(Tx a) {
        if (a.has(TcpFlags.RST)) {
            return s.rwnd;
        }
        if (a.has(TcpFlags.SYN)) {
            return a.p.win;
        }
        if (rcvWscale < 0) {
            return a.p.win == 0 ? 0 : -1; // zero is zero whatever the scale
        }
        return (long) a.p.win << rcvWscale;
    }

    /** What a cumulative ACK covers leaves the scoreboard; returns segments newly acknowledged. */
    private long acknowledge(long ack, long t) {
        long acked = s.scoreboard.acknowledge(ack);
        Scoreboard.Segment newest = s.scoreboard.newestAcked();
        if (newest != null && !newest.everRetransmitted) {
            s.rtt.sample(t - newest.lastDep); // Karn: only never-retransmitted segments
        }
        return acked;
    }
}
