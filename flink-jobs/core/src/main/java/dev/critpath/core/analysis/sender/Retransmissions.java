package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.LossCause;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.TcpFlags;

/**
 * The sender's re-sends: which copy each repeats, how the loss was recognised (tcpeval's loss
 * classes), which re-send carries the loss arc, and what each does to the congestion state.
 */
final class Retransmissions {
    private static final long NONE = SenderState.NONE;

    private final SenderState s;
    private final LossClassifier losses;
    /** Whose clock to read: the unwatched sender's direction, or null when the sender is watched. */
    private final Direction clockOf;
    /** That sender's own clock, or null: where it can tell, it decides between an ACK and a timer. Made at the first re-send (most connections have none). */
    private SenderClock clock;
    private boolean clockMade;
    /** When the timer last fired, on that clock. */
    private long lastTimerAt = Long.MIN_VALUE;
    /** When the last re-send after the network's "packet too big" left, or NONE. */
    private long lastPathMtuAt = NONE;
    /** The timer's last re-send, or -1: none yet. */
    private int lastTimerResend = -1;

    /** @param clockOf the unwatched sender's direction, whose own clock may tell its re-sends apart; null when the sender is watched */
    Retransmissions(SenderState s, boolean sack, Direction clockOf) {
        this.s = s;
        this.losses = new LossClassifier(s.cfg, sack);
        this.clockOf = clockOf;
    }

    private SenderClock clock() {
        if (!clockMade) {
            clock = clockOf == null ? null : SenderClock.of(s.txs, clockOf);
            clockMade = true;
        }
        return clock;
    }

    private LossClassifier.Seen seen() {
        return new LossClassifier.Seen(s.lastLossEvidence, s.lastAckTime, s.rtt.minRtt(), s.rtt.srtt(), s.cc.state(), s.una, s.nxt,
                s.timerArmedAt, Math.max(s.lastNewDataAt, s.lastAckTime));
    }

    /** How a re-send whose earlier copies no sensor saw was recognised, had they left at {@code firstDep}. */
    LossCause causeOfHidden(long t, long end, long firstDep) {
        return losses.classify(t, end, firstDep, null, seen());
    }

    /**
     * New data that is the timer's re-send of copies no sensor saw ({@code timers} expiries: a
     * timeout or probe, then backoffs), leaving at {@code t}: marked and counted as the kernel
     * counts them, a probe whose timing an RTO fits too as "probe or timeout" like a captured one.
     * A timeout leaves the window to this copy (the caller records it, and the copy's segment, once
     * the copy is sent).
     */
    void timerResendOfUnseen(Tx r, long t, LossCause cause, int timers) {
        if (cause == LossCause.TAIL_LOSS_PROBE && losses.probeCouldBeTimeout(t, seen())) {
            s.stats.probesOrTimeouts++;
        }
        s.marks.resent(r, -1, cause);
        s.marks.lossArc(r, true);
        s.stats.countTimer(cause);
        s.stats.retransmissions++;
        s.stats.retransmittedBytes += r.p.len;
        countUnseenBackoffs(r, timers - 1);
        timerFired(r);
        if (LossCause.byRetransmissionTimer(cause)) {
            timerExpired(r.end(), t, false);
        }
    }

    /** A retransmission timer ran out (no probe): the loss state, every segment out counted lost, sent up to {@code lossPoint}. */
    private void timerExpired(long lossPoint, long t, boolean backoff) {
        s.cc.timeout(lossPoint, t, backoff);
        s.scoreboard.markAllLost();
    }

    /** Segment seg's copy r, re-sent at t for this cause: what a later copy's cause and Karn's rule read. */
    void copySent(Scoreboard.Segment seg, Tx r, long t, LossCause cause) {
        seg.everRetransmitted = true;
        s.scoreboard.resent(seg);
        seg.lastTx = r.idx();
        seg.lastDep = t;
        seg.lastCause = cause;
        if (LossCause.byRetransmissionTimer(cause)) {
            seg.unaAtLastTimer = s.una;
        }
    }

    /** The timer sent r: its clock restarts there. */
    private void timerFired(Tx r) {
        if (clock() != null && r.p.tsval >= 0) {
            lastTimerAt = clock.sentAt(r);
        }
    }

    /**
     * The timer's earlier re-sends that no sensor saw (lost before it, as the original was), when
     * the sender is not watched: as many backed-off expiries as the wait fits since the timer was
     * last started (an ACK of new data, or {@code above}: the first packet above r's bytes, which
     * left after their lost original). Not within a timeout's recovery: the RTO stays backed off
     * there, so a long wait needs no hidden re-send. Something must vouch for the count: the
     * sender's IP ids, no more than they say went missing; where they tell nothing, its own clock
     * (its timestamps place the departures, so no queue stretched the wait, and its echoes say a
     * timer sent r), with nothing captured from it in between (a sender that sent on was hearing
     * ACKs, which may have released r).
     */
    private void countHiddenBackoffs(Tx r, Tx above, SenderClock.Verdict verdict) {
        if (s.missingBefore == null && (verdict != SenderClock.Verdict.TIMER || !silentBetween(above, r))
                || s.cc.state() == CongestionControl.State.LOSS) {
            return;
        }
        int expiries = HiddenTimers.expiries(r.dep() - Math.max(above.dep(), s.timerArmedAt), s.rtt.rto());
        countUnseenBackoffs(r, s.missingBefore == null ? expiries - 1 : Math.min(expiries - 1, s.missingBefore[r.idx()]));
    }

    /** No packet of r's sender was captured leaving between a and r. */
    private boolean silentBetween(Tx a, Tx r) {
        for (Tx t : s.txs) {
            if (t.direction() == r.direction() && t.dep() > a.dep() && t.dep() < r.dep()) {
                return false;
            }
        }
        return true;
    }

    /** Backed-off re-sends of r's bytes that never reached a sensor. */
    private void countUnseenBackoffs(Tx r, int n) {
        if (n > 0) {
            s.stats.backoffs += n;
            s.stats.retransmissions += n;
            s.stats.retransmittedBytes += (long) n * r.p.len;
        }
    }

    /**
     * A SYN again: its timer re-sent it, unless it is a SYN-ACK answering the peer's repeated SYN
     * (Linux counts that a retransmitted segment but no timeout): a re-send without a loss cause,
     * whose path runs through that SYN's arrival like any answer's.
     */
    void synAgain(Tx syn, int prevIdx) {
        Tx prev = s.txs.get(prevIdx);
        if (syn.has(TcpFlags.ACK) && s.lastPeerSynAt != NONE && s.lastPeerSynAt >= prev.dep()
                && syn.dep() - s.lastPeerSynAt <= s.cfg.ackTriggerSlackUs) {
            s.marks.resent(syn, prevIdx, null);
            s.stats.retransmissions++;
            return;
        }
        LossCause before = s.marks.lossCause(prev);
        LossCause cause = LossCause.byRetransmissionTimer(before) ? LossCause.BACKOFF : LossCause.TIMEOUT;
        s.marks.resent(syn, prevIdx, cause);
        s.marks.lossArc(syn, true);
        s.stats.countTimer(cause);
        s.stats.retransmissions++;
        s.resends.add(syn, prev);
    }

    /**
     * A FIN sent again as the acknowledgement of the peer's packet that has just arrived: BSD-derived
     * stacks set FIN on every segment they send while their FIN is unacknowledged, so acknowledging
     * the peer's FIN (or data) repeats it. No timer sent it and no loss was recognised: a re-send
     * (tcptrace and tshark count it) whose path runs through that packet's arrival like any answer's.
     */
    private boolean answersPeer(Tx r, int prevIdx) {
        if (prevIdx < 0 || !r.has(TcpFlags.FIN) || r.p.len > 0 || s.lastAckTx < 0) {
            return false;
        }
        Tx prev = s.txs.get(prevIdx);
        Tx peer = s.txs.get(s.lastAckTx);
        return prev.has(TcpFlags.FIN) && r.p.ack > prev.p.ack && peer.p.carriesSeqSpace() && peer.end() == r.p.ack
                && r.dep() - peer.arr() <= s.cfg.ackTriggerSlackUs;
    }

    /**
     * The first SYN/ACK a sensor saw of an unwatched server, when it echoes the client's earlier SYN
     * though the client had sent a later one before it arrived: the server got the earlier SYN and
     * answered it, and that answer never reached the sensor. This one answers the later SYN if it
     * left as that arrived (Linux: a re-send, no timer), else the server's SYN/ACK timer sent it.
     */
    void synAckAfterUnseen(Tx synAck) {
        if (synAck.p.tsecr < 0 || synAck.arr() == Tx.NONE) {
            return;
        }
        Tx echoed = null;
        Tx later = null;
        for (Tx t : s.txs) {
            if (t.direction() != synAck.direction() && t.has(TcpFlags.SYN) && !t.has(TcpFlags.ACK) && t.dep() != Tx.NONE) {
                if (echoed == null && t.p.tsval == synAck.p.tsecr) {
                    echoed = t;
                } else if (echoed != null && t.dep() > echoed.dep() && t.dep() < synAck.arr()) {
                    later = t;
                }
            }
        }
        if (later == null) {
            return;
        }
        s.stats.retransmissions++;
        if (later.arr() != Tx.NONE && Math.abs(synAck.dep() - later.arr()) <= s.cfg.ackTriggerSlackUs) {
            s.marks.resent(synAck, -1, null);
            return;
        }
        s.marks.resent(synAck, -1, LossCause.TIMEOUT);
        s.stats.countTimer(LossCause.TIMEOUT);
    }

    /**
     * A piece of a captured copy, re-sent within a round trip of it with no ACK reporting a loss
     * and too soon for any timer: only the network's "packet too big" tells a sender that quickly,
     * and it re-sends what the path now carries (ICMP is not among the packet events). Pieces of
     * copies that left before such a re-send belong to the same event when ACKs release them later
     * (Linux marks every oversized segment lost; its window sends the pieces a round at a time).
     */
    private boolean afterPacketTooBig(Tx r, Tx prev, long t) {
        long minRtt = s.rtt.minRtt();
        return prev != null && r.p.len > 0 && r.p.len < prev.p.len && r.seq() >= prev.seq() && r.end() <= prev.end()
                && (s.lastLossEvidence == NONE || s.lastLossEvidence < prev.dep())
                && !losses.timerCouldFire(t, s.timerArmedAt)
                && (minRtt <= 0 || t - prev.dep() < minRtt || lastPathMtuAt != NONE && prev.dep() < lastPathMtuAt);
    }

    /** Data sent before, again; prevIdx is the copy it repeats, or -1 when none was captured. */
    void resent(Tx r, long t, int prevIdx) {
        s.stats.retransmissions++;
        s.stats.retransmittedBytes += r.p.len;
        if (answersPeer(r, prevIdx)) {
            s.marks.resent(r, prevIdx, null);
            s.marks.liberator(r, s.lastAckTx);
            Scoreboard.Segment fin = s.scoreboard.at(r.seq());
            if (fin != null) {
                fin.everRetransmitted = true; // Karn: its ACK times neither copy
            }
            s.sent.add(r);
            return;
        }
        boolean originalCaptured = prevIdx >= 0;
        if (originalCaptured) {
            s.resends.add(r, s.txs.get(prevIdx));
        } else {
            // the lost original was never captured: it left no later than the first packet above its first byte
            Tx above = s.sent.firstAbove(r.seq() + 1);
            prevIdx = above != null ? above.idx() : -1;
        }
        Scoreboard.Segment seg = s.scoreboard.at(r.seq());
        Tx prev = prevIdx >= 0 ? s.txs.get(prevIdx) : null;
        SenderClock.Verdict verdict = clock() == null ? SenderClock.Verdict.UNKNOWN
                : clock.judge(r, prev, originalCaptured && s.marks.kind(prev) == TxKind.RETRANSMISSION, lastTimerAt, s.cfg.rtoMinUs);
        // the timer re-sends the first unacknowledged segment; the rest of a timeout's recovery is released by ACKs
        boolean timeoutRecovery = switch (verdict) {
            case TIMEOUT_RECOVERY -> true;
            case RELEASED, TIMER -> false;
            case UNKNOWN -> s.cc.state() == CongestionControl.State.LOSS
                    && (r.seq() > s.una || !losses.timerCouldFire(t, s.timerArmedAt) || s.lastAckNewsAt != NONE && t - s.lastAckNewsAt <= s.cfg.ackTriggerSlackUs);
        };
        // no ACK came since the timer's re-send and the sender's clock names none: it left on the same expiry (stacks that re-send more than one segment then)
        boolean rodeTheTimer = timeoutRecovery && verdict == SenderClock.Verdict.UNKNOWN && lastTimerResend >= 0
                && (s.lastAckTime == NONE || s.lastAckTime < s.txs.get(lastTimerResend).dep());
        LossClassifier.Seen seen = seen();
        boolean timerExpired = false;
        LossCause cause = afterPacketTooBig(r, prev, t) ? LossCause.PATH_MTU : rodeTheTimer ? s.marks.lossCause(s.txs.get(lastTimerResend))
                : timeoutRecovery ? LossCause.TIMEOUT : switch (verdict) {
            case RELEASED -> LossCause.FAST_RETRANSMIT;
            case TIMER -> losses.timerCause(t, r.end(), seg, seen);
            default -> losses.classify(t, r.end(), prev == null ? NONE : prev.dep(), seg, seen);
        };
        s.marks.resent(r, prevIdx, cause);
        if (cause == LossCause.TAIL_LOSS_PROBE && losses.probeCouldBeTimeout(t, seen)) {
            s.stats.probesOrTimeouts++;
        }
        if (cause == LossCause.PATH_MTU) {
            // Linux leaves the window alone: the bytes in flight did not grow, only their packets shrank
            s.stats.pathMtuRetransmits++;
            s.marks.lossArc(r, true);
            lastPathMtuAt = t;
        } else if (timeoutRecovery) {
            s.stats.slowStartRetransmits++;
            if (rodeTheTimer) {
                s.marks.lossArc(r, true);
                s.marks.lossArcFrom(r, lastTimerResend);
            } else {
                // go-back-N after a timeout, released by an ACK: the timer re-send carries the loss
                s.marks.liberator(r, s.lastAckTx);
            }
        } else if (cause == LossCause.FAST_RETRANSMIT) {
            s.stats.fastRetransmits++;
            s.marks.lossArc(r, s.cc.state() != CongestionControl.State.RECOVERY); // later re-sends of the recovery are released by ACKs
            s.marks.liberator(r, s.lastAckTx);
            if (s.cc.fastRetransmit(s.nxt, s.lastAckDelivered)) {
                s.recordEvent(s.lastAckTx, false);
            }
        } else {
            s.stats.countTimer(cause);
            if (!originalCaptured && prev != null && cause == LossCause.TIMEOUT && s.unwatched) {
                countHiddenBackoffs(r, prev, verdict);
            }
            s.marks.lossArc(r, true);
            s.timerArmedAt = t;
            lastTimerResend = r.idx();
            timerFired(r);
            timerExpired = LossCause.byRetransmissionTimer(cause);
            if (timerExpired) {
                timerExpired(s.nxt, t, cause == LossCause.BACKOFF);
            }
        }
        if (seg != null) {
            copySent(seg, r, t, cause);
        }
        s.sent.add(r);
        if (r.end() > s.nxt) {
            s.nxt = r.end(); // repacketised: old and new bytes together
        }
        s.cc.sent(s.segs(r.p.len));
        if (timerExpired) {
            s.recordTimerWindow();
        }
    }
}
