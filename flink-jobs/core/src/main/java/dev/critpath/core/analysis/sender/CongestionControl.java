package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.DirectionStats;

/**
 * The sender's congestion window, in segments, and the state it is in, as Linux's
 * tcp_ca_state names them: Open; Disorder while duplicate ACKs arrive; Recovery from a fast
 * retransmit until everything sent before it is acknowledged (PRR or window inflation); Loss
 * from a timeout until the same. (CWR, ECN's reduction, is not modelled.) Each event below says
 * which transitions it makes; {@link #state()} is the only state there is.
 */
final class CongestionControl {
    /** Linux's tcp_ca_state. */
    enum State { OPEN, DISORDER, RECOVERY, LOSS }

    private static final long NONE = Long.MIN_VALUE;

    private final AnalysisConfig cfg;
    private final DirectionStats stats;
    private State state = State.OPEN;
    private long cwnd;
    private long cwndCnt;
    private long ssthresh;
    /** What was sent when Recovery or Loss began: reaching it ends them. */
    private long recoverPoint;
    private long lossPoint;
    private long lossStart = NONE;
    // RFC 6937 proportional rate reduction
    private long priorCwnd;
    private long prrDelivered;
    private long prrOut;
    // Linux tcp_cwnd_validate
    private boolean isCwndLimited;
    private long maxPacketsOut;
    private long cwndUsageSeq;

    CongestionControl(AnalysisConfig cfg, DirectionStats stats) {
        this(cfg, stats, cfg.initialWindow, cfg.initialSsthresh);
    }

    /** A window in the Open state from this size and threshold on. */
    CongestionControl(AnalysisConfig cfg, DirectionStats stats, long cwnd, long ssthresh) {
        this.cfg = cfg;
        this.stats = stats;
        this.cwnd = cwnd;
        this.ssthresh = ssthresh;
    }

    State state() {
        return state;
    }

    /** In fast recovery or recovering from a timeout. */
    boolean recovering() {
        return state == State.RECOVERY || state == State.LOSS;
    }

    long cwnd() {
        return cwnd;
    }

    long ssthresh() {
        return ssthresh;
    }

    /** When the last timeout fired, or NONE. */
    long lossStart() {
        return lossStart;
    }

    /** Segments the window allows beyond those in flight. */
    long allowed(long pipe) {
        return Math.max(0, cwnd - pipe);
    }

    /**
     * An ACK moved the cumulative point to {@code una}. Disorder goes back to Open, Recovery and
     * Loss end once {@code una} reaches what was sent when they began; the window grows unless
     * Recovery goes on.
     *
     * @param delivered segments the ACK reported delivered, acknowledged or SACKed
     * @param reno without SACK, as Linux's NewReno: a partial ACK marks the next hole lost
     *             (tcp_newreno_mark_lost), out of flight until re-sent, and PRR lets no segment
     *             more for a fresh loss; the ACK that reaches the recovery point grows nothing,
     *             as Linux holds the recovery on it until data above is acknowledged
     *             (tcp_try_undo_recovery, RFC 6582)
     * @return true for a partial ACK in Recovery: the next hole is lost too (NewReno)
     */
    boolean cumulativeAck(long una, long acked, long delivered, long pipe, boolean reno) {
        switch (state) {
            case RECOVERY -> {
                if (una < recoverPoint) {
                    prr(delivered, reno ? Math.max(pipe - 1, 0) : pipe, !reno);
                    return true;
                }
                state = State.OPEN;
                cwnd = Math.max(ssthresh, 1);
                if (!reno) {
                    grow(acked); // Linux's tcp_cong_control: the ACK that ends the reduction may grow the window
                }
            }
            case LOSS -> {
                if (una >= lossPoint) {
                    state = State.OPEN;
                }
                grow(acked);
            }
            default -> {
                state = State.OPEN;
                grow(acked);
            }
        }
        return false;
    }

    /** A duplicate ACK reporting {@code delivered} segments: Open turns to Disorder; in Recovery it lets PRR send. */
    void duplicateAck(long delivered, long pipe) {
        if (state == State.OPEN) {
            state = State.DISORDER;
        } else if (state == State.RECOVERY) {
            prr(delivered, pipe, false);
        }
    }

    /**
     * A fast retransmit: Open or Disorder enter Recovery, halving the window; returns whether they
     * did. The ACK that revealed the loss reported {@code delivered} segments: PRR's first delivery,
     * as Linux counts it on entering.
     */
    boolean fastRetransmit(long nxt, long delivered) {
        if (state == State.RECOVERY || state == State.LOSS) {
            return false;
        }
        state = State.RECOVERY;
        recoverPoint = nxt;
        priorCwnd = cwnd;
        ssthresh = Math.max(cwnd / 2, 2);
        prrDelivered = delivered;
        prrOut = 0;
        if (!cfg.prr) {
            cwnd = ssthresh + cfg.dupThresh;
        }
        return true;
    }

    /** The retransmission timer fired at {@code t}: any state enters Loss with a window of one. */
    void timeout(long nxt, long t, boolean backoff) {
        if (!backoff) {
            ssthresh = Math.max(cwnd / 2, 2); // RFC 5681: held constant on repeated timeouts
        }
        cwnd = 1;
        cwndCnt = 0;
        state = State.LOSS;
        lossPoint = nxt;
        lossStart = t;
    }

    /** Data sent; in Recovery PRR counts it. */
    void sent(int segs) {
        if (state == State.RECOVERY) {
            prrOut += segs;
        }
    }

    /** Data left beyond the window (CUBIC, hidden timeouts): the window is at least what flies now. */
    void resync(long pipe, int segs) {
        cwnd = Math.max(cwnd, pipe + segs);
        stats.maxCwndSegments = Math.max(stats.maxCwndSegments, cwnd);
    }

    /** Linux tcp_cwnd_restart: halve per RTO idle, not below the initial window. */
    void restartAfterIdle(long idle, long rto) {
        long restart = Math.min(cfg.initialWindow, cwnd);
        long c = cwnd;
        for (long d = idle - rto; d > 0 && c > restart; d -= rto) {
            c >>= 1;
        }
        cwnd = Math.max(c, restart);
        cwndCnt = 0;
    }

    /** Linux tcp_cwnd_validate on the send path: how much of cwnd the current window of data uses. */
    void validate(long pipe, long una, long nxt) {
        boolean limitedNow = pipe >= cwnd;
        if (una >= cwndUsageSeq || limitedNow || (!isCwndLimited && pipe > maxPacketsOut)) {
            isCwndLimited = limitedNow;
            maxPacketsOut = pipe;
            cwndUsageSeq = nxt;
        }
    }

    /** Slow start then congestion avoidance (Linux tcp_reno_cong_avoid, byte counting in segments). */
    private void grow(long acked) {
        if (acked <= 0 || (cfg.cwndValidation && !cwndLimited())) {
            return;
        }
        if (cwnd < ssthresh) {
            long inc = Math.min(acked, ssthresh - cwnd);
            if (cfg.slowStartIncreasePerAck > 0) {
                inc = Math.min(inc, cfg.slowStartIncreasePerAck);
                acked = inc; // classic Reno: the rest of this ACK does not carry into avoidance
            }
            cwnd += inc;
            acked -= inc;
        }
        if (acked > 0) { // Linux tcp_cong_avoid_ai: one segment per window's worth acknowledged
            if (cwndCnt >= cwnd) { // credit earned at a larger window (before a reduction): spent gently
                cwndCnt = 0;
                cwnd++;
            }
            cwndCnt += acked;
            if (cwndCnt >= cwnd) {
                long delta = cwndCnt / cwnd;
                cwndCnt -= delta * cwnd;
                cwnd += delta;
            }
        }
        stats.maxCwndSegments = Math.max(stats.maxCwndSegments, cwnd);
    }

    private boolean cwndLimited() {
        return isCwndLimited || (cwnd < ssthresh && cwnd < 2 * maxPacketsOut);
    }

    /**
     * RFC 6937 proportional rate reduction: cwnd = pipe + what may be sent for what was delivered.
     * Below ssthresh Linux (tcp_cwnd_reduction) lets one segment more only for an ACK that moved
     * the cumulative point and marked nothing lost: a duplicate ACK sends no more than it reports delivered.
     */
    private void prr(long delivered, long pipe, boolean oneMore) {
        if (!cfg.prr) {
            cwnd++; // RFC 5681 window inflation per duplicate ACK
            return;
        }
        prrDelivered += delivered;
        long sndcnt;
        if (pipe > ssthresh) {
            sndcnt = (ssthresh * prrDelivered + priorCwnd - 1) / Math.max(priorCwnd, 1) - prrOut;
        } else {
            sndcnt = Math.min(ssthresh - pipe, Math.max(prrDelivered - prrOut, delivered) + (oneMore ? 1 : 0));
        }
        sndcnt = Math.max(sndcnt, prrOut == 0 ? 1 : 0);
        cwnd = pipe + Math.max(sndcnt, 0);
    }
}
