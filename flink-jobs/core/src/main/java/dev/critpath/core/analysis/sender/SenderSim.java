package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.CaptureMode;
import dev.critpath.core.analysis.Direction;
import dev.critpath.core.analysis.DirectionStats;
import dev.critpath.core.analysis.LossCause;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.TcpFlags;
import java.util.List;

/**
 * Replays one direction's sender: its data departures and the ACK arrivals it saw, in time order,
 * through a TCP Reno model (RFC 5681 slow start and congestion avoidance, fast retransmit with
 * PRR or window-inflation fast recovery, RTO with backoff, the receiver's scaled window). It marks
 * each new data packet with the ACK whose arrival opened the window for it (tcpeval's forward
 * pass), each retransmission with the transmission it repeats and how the loss was recognised.
 * Data sent beyond the simulated window (CUBIC, hidden timeouts, PRR timing) re-synchronises
 * the window to the observed flight and is counted, never fatal.
 */
public final class SenderSim {
    private static final long NONE = SenderState.NONE;

    private final Direction dir;
    private final SenderState s;
    private final AckArrivals acks;
    private final Retransmissions retransmissions;
    private final Bursts bursts;
    /** The sender is the end a single capture does not watch: its departures are estimates. */
    private final boolean departuresEstimated;
    /** How far estimated departures and arrivals may be off against each other (delay jitter, the kernel's reaction). */
    private static final long ESTIMATE_ERROR_US = 200;
    /** The connection's transmissions, the direction's apart. */
    private final Transmissions txs;
    /** This sender's departures in time order, and how many of them the replay has taken in so far. */
    private final Tx[] sends;
    private int sendsTaken;
    /** ACK arrivals in time order, and how many of them the replay has taken in so far. */
    private final Tx[] ackArrivals;
    private int acksTaken;

    /**
     * @param mss       the sender's segment size
     * @param rcvWscale the shift the receiver applies to its advertised windows (its SYN's window scale); -1 unknown
     * @param marks     where the simulation writes what it learns about this direction's transmissions
     * @param mode      which sensors saw the connection: with one, the end it does not watch sends at estimated times
     */
    public SenderSim(List<Tx> txs, Direction dir, AnalysisConfig cfg, int mss, int rcvWscale, boolean sack, SenderMarks marks,
            CaptureMode mode) {
        this(Transmissions.of(txs), dir, cfg, mss, rcvWscale, sack, marks, mode);
    }

    SenderSim(Transmissions txs, Direction dir, AnalysisConfig cfg, int mss, int rcvWscale, boolean sack, SenderMarks marks,
            CaptureMode mode) {
        this.dir = dir;
        this.txs = txs;
        this.departuresEstimated = mode.unwatched() == dir.sender();
        this.sends = timed(txs.of(dir), TxTime.DEPARTURE, false);
        this.ackArrivals = timed(txs.against(dir), TxTime.ARRIVAL, true);
        this.s = new SenderState(txs.all(), cfg, mss, marks, sends.length, ackArrivals.length);
        marks.segmentSize(dir, s.mss);
        this.acks = new AckArrivals(s, rcvWscale, sack);
        this.retransmissions = new Retransmissions(s, sack, departuresEstimated ? dir : null);
        this.bursts = new Bursts(s.stats, cfg.burstGapUs);
    }

    /** Replays the direction once; returns what it counted. */
    public DirectionStats run() {
        long[] earliest = null;
        if (departuresEstimated) {
            earliest = QueueBound.earliestDepartures(sends);
            s.unwatched = true;
            s.missingBefore = IpIds.missingBefore(sends, s.txs.size());
        }
        while (sendsTaken < sends.length || acksTaken < ackArrivals.length) {
            int i = sendsTaken;
            int j = acksTaken;
            // an ACK and a send in the same microsecond: the ACK may have caused the send
            boolean ackFirst = j < ackArrivals.length && (i == sends.length || ackArrivals[j].arr() <= sends[i].dep());
            if (ackFirst && earliest != null && i < sends.length && ackArrivals[j].arr() > earliest[i] && windowAllows(sends[i])) {
                // an estimated departure is late by whatever queue the data met on its way: data
                // the window already allowed left before ACKs that merely seem to arrive first
                ackFirst = false;
            } else if (!ackFirst && earliest != null && j < ackArrivals.length && sends[i].seq() < s.nxt && !s.cc.recovering()
                    && ackArrivals[j].arr() - sends[i].dep() <= estimateSlack()) {
                // a fast retransmit leaves right after the ACK that revealed the loss; estimates of
                // the two may swap them by the estimate's error
                ackFirst = true;
            } else if (!ackFirst && earliest != null && j < ackArrivals.length && SenderMarks.sameTickAsEcho(sends[i], ackArrivals[j])
                    && ackArrivals[j].arr() - sends[i].dep() <= estimateSlack() && sends[i].seq() >= s.nxt && sends[i].p.len > 0
                    && !windowAllows(sends[i])) {
                // the data echoes a timestamp tick this ACK shares, so it may have arrived first, and
                // the window needs it: it did, its estimate late by the estimate's error
                ackArrivals[j].arrivedBy(sends[i].dep());
                ackFirst = true;
            }
            if (ackFirst) {
                acks.arrived(ackArrivals[acksTaken++]);
            } else {
                sent(sends[sendsTaken++]);
            }
        }
        long end = Math.max(sends.length == 0 ? NONE : sends[sends.length - 1].dep(),
                ackArrivals.length == 0 ? NONE : ackArrivals[ackArrivals.length - 1].arr());
        s.windows.finish(end, s.una, s.nxt, !s.scoreboard.isEmpty());
        s.resends.decide(txs.against(dir), s.marks, s.stats);
        CaptureCounts.count(txs.of(dir), s.marks, s.stats);
        s.stats.srttUs = s.rtt.srtt();
        s.stats.minRttUs = s.rtt.minRtt();
        return s.stats;
    }

    /**
     * The transmissions of one direction whose time is known (ACKs and SYNs only, for
     * {@code acksOnly}) in the order of that time, stable: the array itself when all are, in
     * order already, as nearly always.
     */
    private static Tx[] timed(Tx[] side, TxTime time, boolean acksOnly) {
        int n = 0;
        boolean ordered = true;
        long last = Long.MIN_VALUE;
        for (Tx t : side) {
            long at = time.of(t);
            if (isTimed(t, at, acksOnly)) {
                n++;
                ordered &= at >= last;
                last = at;
            }
        }
        if (n < side.length) {
            Tx[] kept = new Tx[n];
            n = 0;
            for (Tx t : side) {
                if (isTimed(t, time.of(t), acksOnly)) {
                    kept[n++] = t;
                }
            }
            side = kept;
        }
        return ordered ? side : time.sorted(side);
    }

    private static boolean isTimed(Tx t, long at, boolean acksOnly) {
        return at != Tx.NONE && (!acksOnly || (t.p.flags & (TcpFlags.ACK | TcpFlags.SYN)) != 0);
    }

    /** Sent x, the last departure taken in: the time to the next one. */
    private long timeToNextSend(Tx x) {
        return sendsTaken < sends.length ? sends[sendsTaken].dep() - x.dep() : Long.MAX_VALUE;
    }

    private void sent(Tx x) {
        long t = x.dep();
        s.stats.packets++;
        if (x.has(TcpFlags.SYN)) {
            int prev = s.sent.previousTransmission(0);
            if (prev >= 0) {
                retransmissions.synAgain(x, prev);
            } else if (departuresEstimated && x.has(TcpFlags.ACK)) {
                retransmissions.synAckAfterUnseen(x);
            }
            s.synSentAt = prev >= 0 ? NONE : t;
            s.sent.add(x);
            s.nxt = Math.max(s.nxt, 1);
            return;
        }
        if (!s.established) {
            // data before any ACK: mid-stream capture or TCP Fast Open; start from what we see
            s.established = true;
            s.una = x.seq();
            s.nxt = x.seq();
        }
        if (!x.p.carriesSeqSpace()) {
            if (x.seq() < s.una && x.isPureAck() && s.nxt > 0) {
                probeOrKeepalive(x);
            } else if (x.seq() > s.nxt && x.isPureAck()) {
                // an ACK carries the sender's next sequence number: data the capture missed left just before it
                s.nxt = x.seq();
                s.sent.add(x);
            }
            return; // pure ACK or window update
        }
        if (x.p.len <= 1 && x.seq() == s.una - 1 && !x.has(TcpFlags.FIN) && !missedAckOfUna(x)) {
            s.marks.kind(x, TxKind.KEEPALIVE);
            s.stats.keepalives++;
            return;
        }
        if (s.rwnd == 0 && !x.has(TcpFlags.FIN)) {
            // whatever it carries (Linux: nothing; others one byte or a full segment, again and
            // again), data sent into a closed window probes it; it repairs no loss
            s.marks.kind(x, TxKind.WINDOW_PROBE);
            s.stats.windowProbes++;
            return;
        }
        if (x.seq() < s.nxt) {
            int prev = s.sent.previousTransmission(x.seq());
            if (prev < 0 && s.sent.reorderedOriginal(x, s.rtt.minRtt())) {
                reorderedOriginal(x, t);
            } else {
                retransmissions.resent(x, t, prev);
                if (prev < 0) {
                    lostCopyLeftWith(x);
                }
            }
            return;
        }
        newData(x, t);
    }

    /**
     * The sender's own ACK shows it never took in the segment that acknowledged its bytes up to
     * una (it had every byte before that segment's data, not the data): that ACK was lost after
     * the capture point, so a byte at una - 1 is the timer's re-send, not a keep-alive.
     */
    private boolean missedAckOfUna(Tx x) {
        Tx a = s.unaMovedBy;
        return a != null && a.p.len > 0 && x.p.ack >= a.p.seq && x.p.ack < a.p.seq + a.p.len;
    }

    private void probeOrKeepalive(Tx x) {
        if (s.rwnd == 0) {
            s.marks.kind(x, TxKind.WINDOW_PROBE);
            s.stats.windowProbes++;
        } else {
            s.marks.kind(x, TxKind.KEEPALIVE);
            s.stats.keepalives++;
        }
    }

    private void newData(Tx x, long t) {
        s.marks.kind(x, TxKind.NEW_DATA);
        s.marks.window(x, s.cc.cwnd(), s.cc.ssthresh());
        int segs = s.segs(x.p.len);
        if (x.p.len > 0) {
            s.stats.dataPackets++;
        }
        if (s.cfg.slowStartAfterIdle && s.scoreboard.isEmpty() && s.lastNewDataAt != NONE && t - s.lastNewDataAt > s.rtt.rto()) {
            s.cc.restartAfterIdle(t - s.lastNewDataAt, s.rtt.rto());
            s.recordEvent(-1, false);
        }
        long e = x.end();
        long dataEnd = x.seq() + x.p.len; // Linux lets a FIN go whatever the congestion window
        int liberator = -1;
        int windowNeeded = -1;
        LossCause hiddenTimer = null;
        if (x.p.len > 0) {
            if (s.limit() >= dataEnd) {
                liberator = s.liberations.liberatorFor(dataEnd, s.lastAckTx);
                windowNeeded = liberator;
                int clock = clockingAck(t);
                if (clock >= 0 && liberator != clock) {
                    liberator = clock;
                    s.stats.ackClocked++;
                }
            } else {
                liberator = beyondWindow(x, dataEnd, segs);
            }
            s.marks.liberator(x, liberator, windowNeeded >= 0 ? s.txs.get(windowNeeded) : null);
            hiddenTimer = departuresEstimated && liberator >= 0 ? hiddenResend(x, t, liberator) : null;
            if (hiddenTimer != null) {
                s.marks.originalLiberator(x, liberator);
                s.timerArmedAt = t;
            }
        }
        if (s.scoreboard.isEmpty()) {
            s.timerArmedAt = t;
        }
        s.scoreboard.add(x.seq(), e, Math.max(segs, 1), x.idx(), t);
        if (hiddenTimer != null) {
            retransmissions.copySent(s.scoreboard.at(x.seq()), x, t, hiddenTimer);
        }
        s.sent.add(x);
        s.nxt = e;
        if (x.p.len > 0) {
            s.lastNewDataAt = t;
            s.peerDataSinceLastSend = false;
        }
        s.cc.sent(segs);
        s.cc.validate(s.scoreboard.pipe(), s.una, s.nxt);
        if (x.p.len > 0) {
            bursts.sent(liberator, t, liberator < 0 || s.liberations.opensFlow(liberator));
        }
        s.windows.sent(e, s.una, s.rwnd);
        if (LossCause.byRetransmissionTimer(hiddenTimer)) {
            s.recordTimerWindow();
        }
    }

    /**
     * Data of the unwatched sender that the window had allowed for a retransmission timeout (or
     * with SACK a probe timeout) while the sender, within its turn, sent nothing the sensor saw, and
     * whose IP identifier says packets were sent meanwhile: its first copy was lost before the
     * sensor, and this is the timer's re-send, alone as a timer sends. Counted as the kernel does.
     *
     * @return the timer's cause (a timeout or probe), or null when x is not such a re-send
     */
    private LossCause hiddenResend(Tx x, long t, int liberator) {
        // a timer re-sends the first unacknowledged segment alone and waits a round trip; a burst after the pause was the application's
        boolean alone = s.rtt.minRtt() > 0 && timeToNextSend(x) >= s.rtt.minRtt() / 2;
        if (!alone || x.seq() != s.una || s.missingBefore == null || s.missingBefore[x.idx()] == 0 || s.peerDataSinceLastSend
                || s.cc.state() != CongestionControl.State.OPEN) {
            return null;
        }
        long allowedAt = Math.max(s.lastNewDataAt, s.txs.get(liberator).arr());
        LossCause cause = retransmissions.causeOfHidden(t, x.end(), allowedAt);
        long wait = t - allowedAt;
        int timers = cause == LossCause.TAIL_LOSS_PROBE ? (HiddenTimers.probeFits(wait, s.rtt.srtt()) ? 1 : 0) : HiddenTimers.expiries(wait, s.rtt.rto());
        if (cause == LossCause.FAST_RETRANSMIT || timers == 0) {
            return null;
        }
        retransmissions.timerResendOfUnseen(x, t, cause, timers);
        return cause;
    }

    /**
     * A re-send whose first copy no sensor saw: that copy left after the segment just below it and
     * no later than the first above. When the window allowed it before the one below left, it left
     * right after that one, as a sender sends what its window allows at once (and a queue dropping
     * the tail of a burst loses just those segments).
     */
    private void lostCopyLeftWith(Tx x) {
        int below = s.sent.previousTransmission(x.seq() - 1);
        int above = s.marks.rtxOf(x);
        if (below < 0 || above < 0 || s.txs.get(below).dep() > s.txs.get(above).dep()) {
            return;
        }
        int allowedBy = s.liberations.liberatorFor(x.end(), -1);
        if (allowedBy >= 0 && s.txs.get(allowedBy).arr() != Tx.NONE && s.txs.get(allowedBy).arr() <= s.txs.get(below).dep()) {
            s.marks.lossArcFrom(x, below);
        }
    }

    /** How far the unwatched end's estimated times may be off against each other: a share of the round trip, at most the ACK clock's slack. */
    private long estimateSlack() {
        long minRtt = s.rtt.minRtt();
        return minRtt > 0 ? Math.min(s.cfg.ackClockSlackUs, minRtt / 4) : 0;
    }

    /** New data the windows allow now. */
    private boolean windowAllows(Tx x) {
        return s.established && x.p.len > 0 && x.seq() >= s.nxt && s.limit() >= x.seq() + x.p.len;
    }

    /**
     * The ACK the sender, with data in flight, answered within the clocking slack, or -1. With
     * estimated departures, the latest one that arrived before the send by more than the
     * estimates' error if one did (an ACK estimated just before may really have come just after),
     * else the last one.
     */
    private int clockingAck(long t) {
        if (s.lastAckTime == NONE || s.pipeBeforeLastAck <= 0 || t - s.lastAckTime > s.cfg.ackClockSlackUs) {
            return -1;
        }
        if (departuresEstimated && acksTaken > 0) {
            long newest = ackArrivals[acksTaken - 1].arr();
            for (int k = acksTaken - 1; k >= 0; k--) {
                Tx ack = ackArrivals[k];
                long before = t - ack.arr();
                if (before > s.cfg.ackClockSlackUs || newest - ack.arr() > s.cfg.ackClockSlackUs) {
                    break;
                }
                if (before >= ESTIMATE_ERROR_US) {
                    return ack.idx();
                }
            }
        }
        return s.lastAckTx;
    }

    /** Data beyond the simulated window: the window re-synchronises to the flight; returns its liberator, the latest ACK. */
    private int beyondWindow(Tx x, long dataEnd, int segs) {
        s.marks.sentBeyondWindow(x);
        s.stats.outOfWindow++;
        if (s.rwnd >= 0 && dataEnd > s.una + s.rwnd) {
            s.stats.rwndViolations++;
        } else {
            s.cc.resync(s.scoreboard.pipe(), segs);
        }
        s.recordEvent(s.lastAckTx, false);
        return s.lastAckTx;
    }

    private void reorderedOriginal(Tx x, long t) {
        s.marks.kind(x, TxKind.NEW_DATA);
        s.stats.reordered++;
        s.stats.dataPackets++;
        s.marks.liberator(x, s.liberations.liberatorFor(x.seq() + x.p.len, s.lastAckTx));
        s.scoreboard.add(x.seq(), x.end(), Math.max(s.segs(x.p.len), 1), x.idx(), t);
        s.sent.add(x);
    }
}
