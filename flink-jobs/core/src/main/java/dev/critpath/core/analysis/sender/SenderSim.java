package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.DirectionStats;
import dev.critpath.core.analysis.InOrder;
import dev.critpath.core.analysis.LossCause;
import dev.critpath.core.analysis.align.Tx;
import dev.critpath.core.event.TcpFlags;
import java.util.ArrayList;
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
    private static final long NONE = Long.MIN_VALUE;

    private final List<Tx> txs;
    private final boolean c2s;
    private final AnalysisConfig cfg;
    private final int mss;
    /** Shift the receiver applies to its advertised windows (its SYN's window scale); -1 unknown. */
    private final int rcvWscale;
    private final boolean sack;
    public final DirectionStats stats = new DirectionStats();

    // sequence state
    private boolean established;
    private long una;
    private long nxt;
    private long rwnd = -1;
    private final CongestionControl cc;
    private final LossClassifier losses;
    // timers
    private final RttEstimator rtt;
    private long lastDataSend = NONE;
    private long lastLossEvidence = NONE;
    private long lastAckTime = NONE;
    private int lastAckTx = -1;
    private long pipeBeforeLastAck;
    private final Scoreboard scoreboard = new Scoreboard();
    private final SentHistory sent = new SentHistory();
    // liberation history: after each ACK (or window change), the highest sequence the window allowed
    private final LiberationHistory liberations = new LiberationHistory();
    // window-limited and zero-window accounting
    private final WindowAccounting windows;
    private final Bursts bursts;

    public SenderSim(List<Tx> txs, boolean c2s, AnalysisConfig cfg, int mss, int rcvWscale, boolean sack) {
        this.txs = txs;
        this.c2s = c2s;
        this.cfg = cfg;
        this.mss = Math.max(mss, 1);
        this.rcvWscale = rcvWscale;
        this.sack = sack;
        this.cc = new CongestionControl(cfg, stats);
        this.losses = new LossClassifier(cfg, sack);
        this.rtt = new RttEstimator(cfg.rtoMinUs);
        this.windows = new WindowAccounting(stats, this.mss);
        this.bursts = new Bursts(stats, cfg.burstGapUs);
    }

    public void run() {
        List<Tx> sends = new ArrayList<>();
        List<Tx> acks = new ArrayList<>();
        for (Tx t : txs) {
            if (t.c2s() == c2s && t.dep != Tx.NONE) {
                sends.add(t);
            } else if (t.c2s() != c2s && t.arr != Tx.NONE && t.has(TcpFlags.ACK)) {
                acks.add(t);
            }
        }
        InOrder.sortBy(sends, t -> t.dep);
        InOrder.sortBy(acks, t -> t.arr);
        int i = 0;
        int j = 0;
        while (i < sends.size() || j < acks.size()) {
            // an ACK and a send in the same microsecond: the ACK may have caused the send
            if (j < acks.size() && (i == sends.size() || acks.get(j).arr <= sends.get(i).dep)) {
                onAck(acks.get(j++));
            } else {
                onSend(sends.get(i++));
            }
        }
        long end = Math.max(sends.isEmpty() ? NONE : sends.get(sends.size() - 1).dep, acks.isEmpty() ? NONE : acks.get(acks.size() - 1).arr);
        windows.finish(end, una, nxt, !scoreboard.isEmpty());
        stats.srttUs = rtt.srtt();
        stats.minRttUs = rtt.minRtt();
        stats.bytes = uniqueBytes(txs, c2s);
    }

    /** Payload bytes in the union of sequence ranges seen in one direction (tcptrace's "unique bytes"). */
    private static long uniqueBytes(List<Tx> txs, boolean c2s) {
        List<long[]> ranges = new ArrayList<>();
        for (Tx t : txs) {
            if (t.c2s() == c2s && t.p.len > 0) {
                long first = t.seq() + (t.has(TcpFlags.SYN) ? 1 : 0); // a SYN's data follows its own sequence number
                ranges.add(new long[] {first, first + t.p.len});
            }
        }
        InOrder.sortBy(ranges, r -> r[0]);
        long total = 0;
        long coveredTo = Long.MIN_VALUE;
        for (long[] r : ranges) {
            long from = Math.max(r[0], coveredTo);
            if (r[1] > from) {
                total += r[1] - from;
            }
            coveredTo = Math.max(coveredTo, r[1]);
        }
        return total;
    }

    /** The sender's segment size: MSS option minus timestamps, else the largest segment seen. */
    public static int segmentSize(int fromOptions, List<Tx> txs, boolean c2s) {
        if (fromOptions > 0) {
            return fromOptions;
        }
        int max = 0;
        for (Tx t : txs) {
            if (t.c2s() == c2s && !t.p.offloadPiece) {
                max = Math.max(max, t.p.len);
            }
        }
        return max > 0 ? max : 1460;
    }

    // ------------------------------------------------------------------ ACK arrivals

    private void onAck(Tx a) {
        long t = a.arr;
        long ack = a.p.ack;
        if (!established) {
            if (ack < 1) {
                return;
            }
            established = true;
            una = 1;
            nxt = Math.max(nxt, 1);
            acknowledge(1, t);
            rwnd = window(a);
            recordEvent(a.idx, true);
            lastAckTime = t;
            lastAckTx = a.idx;
            return;
        }
        long prevRwnd = rwnd;
        pipeBeforeLastAck = scoreboard.pipe();
        rwnd = window(a);
        int newlySacked = a.p.sack == null || !sack ? 0 : scoreboard.sack(a.p.sack);
        boolean lossEvidence = newlySacked > 0;
        if (ack > una) {
            long acked = acknowledge(ack, t);
            una = ack;
            if (cc.cumulativeAck(una, acked, newlySacked, scoreboard.pipe())) {
                lossEvidence = true; // partial ACK: the next hole is lost too (NewReno)
            }
        } else if (ack == una && a.p.len == 0 && !a.has(TcpFlags.SYN) && !a.has(TcpFlags.FIN)
                && nxt > una && (rwnd == prevRwnd || a.p.sack != null)) {
            stats.dupAcksReceived++;
            lossEvidence = true;
            if (!sack) {
                scoreboard.duplicateAck();
            }
            cc.duplicateAck(newlySacked, scoreboard.pipe());
        }
        if (lossEvidence) {
            lastLossEvidence = t;
        }
        windows.ack(t, una, nxt, rwnd, cwndLimit());
        recordEvent(a.idx, false);
        lastAckTime = t;
        lastAckTx = a.idx;
    }

    /**
     * The receiver's window in bytes; SYN segments are never scaled (RFC 7323). Caught mid-stream
     * the scale is unknown, so the window is too (-1) rather than wrongly tiny.
     */
    private long window(Tx a) {
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
        long acked = scoreboard.acknowledge(ack);
        Scoreboard.Segment newest = scoreboard.newestAcked();
        if (newest != null && !newest.everRetransmitted) {
            rtt.sample(t - newest.lastDep); // Karn: only never-retransmitted segments
        }
        return acked;
    }

    // ------------------------------------------------------------------ departures

    private void onSend(Tx s) {
        long t = s.dep;
        stats.packets++;
        if (s.has(TcpFlags.SYN)) {
            onSyn(s);
            return;
        }
        if (!established) {
            // data before any ACK: mid-stream capture or TCP Fast Open; start from what we see
            established = true;
            una = s.seq();
            nxt = s.seq();
        }
        boolean seqSpace = s.p.carriesSeqSpace();
        if (!seqSpace) {
            if (s.seq() < una && s.isPureAck() && nxt > 0) {
                classifyProbe(s);
            }
            return; // pure ACK or window update
        }
        if (s.p.len <= 1 && s.seq() == una - 1 && !s.has(TcpFlags.FIN)) {
            s.kind = Tx.Kind.KEEPALIVE;
            stats.keepalives++;
            return;
        }
        if (rwnd == 0 && !s.has(TcpFlags.FIN)) {
            // whatever it carries (Linux: nothing; others one byte or a full segment, again and
            // again), data sent into a closed window probes it; it repairs no loss
            s.kind = Tx.Kind.WINDOW_PROBE;
            stats.windowProbes++;
            return;
        }
        if (s.seq() < nxt) {
            int prev = sent.previousTransmission(s.seq());
            if (prev < 0 && sent.reorderedOriginal(s, rtt.minRtt())) {
                onReorderedOriginal(s, t);
            } else {
                onRetransmission(s, t, prev);
            }
            return;
        }
        onNewData(s, t);
    }

    private void onSyn(Tx s) {
        int prev = sent.previousTransmission(0);
        if (prev >= 0) {
            s.kind = Tx.Kind.RETRANSMISSION;
            s.rtxOf = prev;
            Tx p = txs.get(prev);
            s.lossCause = p.lossCause == LossCause.TIMEOUT || p.lossCause == LossCause.BACKOFF ? LossCause.BACKOFF : LossCause.TIMEOUT;
            s.lossArc = true;
            countTimer(s.lossCause);
            stats.retransmissions++;
            markSpurious(p);
        }
        sent.add(s);
        nxt = Math.max(nxt, 1);
    }

    private void classifyProbe(Tx s) {
        if (rwnd == 0) {
            s.kind = Tx.Kind.WINDOW_PROBE;
            stats.windowProbes++;
        } else {
            s.kind = Tx.Kind.KEEPALIVE;
            stats.keepalives++;
        }
    }

    private void onNewData(Tx s, long t) {
        s.kind = Tx.Kind.NEW_DATA;
        int segs = segs(s.p.len);
        if (s.p.len > 0) {
            stats.dataPackets++;
        }
        if (cfg.slowStartAfterIdle && scoreboard.isEmpty() && lastDataSend != NONE && t - lastDataSend > rtt.rto()) {
            cc.restartAfterIdle(t - lastDataSend, rtt.rto());
            recordEvent(-1, false);
        }
        long e = s.end();
        long dataEnd = s.seq() + s.p.len; // Linux lets a FIN go whatever the congestion window
        boolean finOnly = s.p.len == 0;
        if (!finOnly) {
            if (limit() >= dataEnd) {
                s.liberator = liberations.liberatorFor(dataEnd, lastAckTx);
                if (clockedByLastAck(t) && s.liberator != lastAckTx) {
                    s.liberator = lastAckTx;
                    stats.ackClocked++;
                }
            } else {
                resync(s, t, dataEnd, segs);
            }
        }
        scoreboard.add(new Scoreboard.Segment(s.seq(), e, Math.max(segs, 1), s.idx, t));
        sent.add(s);
        nxt = e;
        if (s.p.len > 0) {
            lastDataSend = t;
        }
        cc.sent(segs);
        cc.validate(scoreboard.pipe(), una, nxt);
        if (s.p.len > 0) {
            bursts.sent(s.liberator, t, s.liberator < 0 || liberations.opensFlow(s.liberator));
        }
        windows.sent(e, una, rwnd);
    }

    /** The sender, with data in flight, answered the last ACK within the clocking slack. */
    private boolean clockedByLastAck(long t) {
        return lastAckTime != NONE && t - lastAckTime <= cfg.ackClockSlackUs && pipeBeforeLastAck > 0;
    }

    private void resync(Tx s, long t, long e, int segs) {
        s.outOfWindow = true;
        stats.outOfWindow++;
        s.liberator = lastAckTx;
        if (rwnd >= 0 && e > una + rwnd) {
            stats.rwndViolations++;
        } else {
            cc.resync(scoreboard.pipe(), segs);
        }
        recordEvent(lastAckTx, false);
    }

    private void onReorderedOriginal(Tx s, long t) {
        s.kind = Tx.Kind.NEW_DATA;
        stats.reordered++;
        stats.dataPackets++;
        s.liberator = liberations.liberatorFor(s.seq() + s.p.len, lastAckTx);
        scoreboard.add(new Scoreboard.Segment(s.seq(), s.end(), Math.max(segs(s.p.len), 1), s.idx, t));
        sent.add(s);
    }

    private void onRetransmission(Tx s, long t, int prevIdx) {
        s.kind = Tx.Kind.RETRANSMISSION;
        stats.retransmissions++;
        stats.retransmittedBytes += s.p.len;
        if (prevIdx < 0) {
            // the lost original was never captured: it left just before the first packet above it
            Tx above = sent.firstAbove(s.end());
            prevIdx = above != null ? above.idx : -1;
        }
        s.rtxOf = prevIdx;
        Scoreboard.Segment seg = scoreboard.at(s.seq());
        Tx prev = prevIdx >= 0 ? txs.get(prevIdx) : null;
        boolean clocked = cc.state() == CongestionControl.State.LOSS && lastAckTime != NONE && lastAckTime > cc.lossStart()
                && t - lastAckTime <= cfg.ackTriggerSlackUs;
        LossCause cause = clocked ? LossCause.TIMEOUT : losses.classify(t, s.end(), prev == null ? NONE : prev.dep, seg,
                new LossClassifier.Seen(lastLossEvidence, lastAckTime, rtt.minRtt(), cc.state(), una, nxt));
        s.lossCause = cause;
        if (prev != null) {
            markSpurious(prev);
        }
        if (clocked) {
            // go-back-N after a timeout, released by an ACK: the timer re-send carries the loss
            stats.slowStartRetransmits++;
            s.liberator = lastAckTx;
        } else if (cause == LossCause.FAST_RETRANSMIT) {
            stats.fastRetransmits++;
            s.lossArc = cc.state() != CongestionControl.State.RECOVERY; // later re-sends of the recovery are released by ACKs
            s.liberator = lastAckTx;
            if (cc.fastRetransmit(nxt)) {
                recordEvent(lastAckTx, false);
            }
        } else {
            countTimer(cause);
            s.lossArc = true;
            if (cause != LossCause.TAIL_LOSS_PROBE) {
                cc.timeout(nxt, t, cause == LossCause.BACKOFF);
                scoreboard.markAllLost();
                recordEvent(-1, false);
            }
        }
        if (seg != null) {
            seg.everRetransmitted = true;
            scoreboard.resent(seg);
            seg.lastTx = s.idx;
            seg.lastDep = t;
            seg.lastCause = cause;
            if (cause == LossCause.TIMEOUT || cause == LossCause.BACKOFF) {
                seg.unaAtLastTimer = una;
            }
        }
        sent.add(s);
        if (s.end() > nxt) {
            nxt = s.end(); // repacketised: old and new bytes together
        }
        cc.sent(segs(s.p.len));
    }

    private void countTimer(LossCause c) {
        switch (c) {
            case TIMEOUT -> stats.timeouts++;
            case BACKOFF -> stats.backoffs++;
            case TAIL_LOSS_PROBE -> stats.tailLossProbes++;
            default -> throw new IllegalStateException(c.name());
        }
    }

    /** A re-send whose earlier copy reached the receiver repaired nothing there. */
    private void markSpurious(Tx prev) {
        if (prev.arr != Tx.NONE && !prev.arrEstimated) {
            stats.spuriousRetransmissions++;
        }
    }

    // ------------------------------------------------------------------ window bookkeeping

    /** Highest sequence number the windows allow right now. */
    private long limit() {
        return Math.min(cwndLimit(), rwnd >= 0 ? una + rwnd : Long.MAX_VALUE);
    }

    /** Highest sequence number the congestion window alone allows. */
    private long cwndLimit() {
        return nxt + cc.allowed(scoreboard.pipe()) * mss;
    }

    private int segs(int len) {
        return Math.max(1, (len + mss - 1) / mss);
    }

    /** A window change, caused by the ACK tx or (tx -1) not by an ACK. */
    private void recordEvent(int tx, boolean flowStart) {
        liberations.record(tx, limit(), flowStart);
    }
}
