package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.DirectionStats;
import dev.critpath.core.analysis.align.Tx;
import java.util.List;

/**
 * One direction's sender as the simulation knows it at the current event: its sequence state,
 * the last ACK it saw, and the parts that model its windows and timers. The simulation's
 * departure side, ACK side and retransmission side all read and advance this one sender.
 */
final class SenderState {
    static final long NONE = Long.MIN_VALUE;

    final List<Tx> txs;
    final AnalysisConfig cfg;
    final int mss;
    final DirectionStats stats = new DirectionStats();
    final SenderMarks marks;
    final CongestionControl cc;
    final RttEstimator rtt;
    final Scoreboard scoreboard = new Scoreboard();
    final SentHistory sent;
    /** After each ACK (or window change), the highest sequence the window allowed. */
    final LiberationHistory liberations;
    final WindowAccounting windows;

    boolean established;
    long una;
    /** The segment whose ACK moved una there, or null. */
    Tx unaMovedBy;
    long nxt;
    /** The receiver's window in bytes, -1 unknown. */
    long rwnd = -1;
    long lastAckTime = NONE;
    int lastAckTx = -1;
    /** Data in flight just before the last ACK arrived. */
    long pipeBeforeLastAck;
    /** Segments the last ACK reported delivered (acknowledged, SACKed, or one for a duplicate). */
    long lastAckDelivered;
    /** When the last ACK carrying loss evidence (duplicate, SACK, partial) arrived. */
    long lastLossEvidence = NONE;
    /**
     * When the last ACK that moved una, newly SACKed bytes or came as a duplicate arrived (what
     * lets a sender in the Loss state send; the peer's data or a window update alone does not), or NONE.
     */
    long lastAckNewsAt = NONE;
    /**
     * When the retransmission timer was last (re)started (RFC 6298 5.1, 5.3, 5.5: data sent with
     * nothing in flight, an ACK of new data, the timer's own expiry), or NONE: it cannot fire
     * sooner than the minimum RTO after that.
     */
    long timerArmedAt = NONE;
    /** When new data last left, or NONE. */
    long lastNewDataAt = NONE;
    /** No sensor watches this sender: its departures are estimated from the arrivals. */
    boolean unwatched;
    /** The unwatched sender's packets that never reached the sensor, per transmission: those just before it (see {@link IpIds}); null when the sender is watched or its IP ids tell nothing. */
    int[] missingBefore;
    /** The peer sent data (a new request) since this sender's last new data. */
    boolean peerDataSinceLastSend;
    /** When this sender's SYN (or SYN/ACK) left, or NONE; NONE again once it was re-sent (Karn: its ACK times nothing). */
    long synSentAt = NONE;
    /** When the peer's last SYN (without ACK) arrived, or NONE. */
    long lastPeerSynAt = NONE;
    /** The re-sends, judged spurious or not once every ACK has been seen. */
    final SpuriousResends resends = new SpuriousResends();

    /**
     * @param sends how many transmissions the sender sent
     * @param acks  how many ACKs it took in
     */
    SenderState(List<Tx> txs, AnalysisConfig cfg, int mss, SenderMarks marks, int sends, int acks) {
        this.txs = txs;
        this.cfg = cfg;
        this.mss = Math.max(mss, 1);
        this.marks = marks;
        this.cc = new CongestionControl(cfg, stats);
        this.rtt = new RttEstimator(cfg.rtoMinUs);
        this.windows = new WindowAccounting(stats, this.mss);
        this.sent = new SentHistory(sends);
        this.liberations = new LiberationHistory(acks + 1);
    }

    /** Highest sequence number the windows allow right now. */
    long limit() {
        return Math.min(cwndLimit(), rwnd >= 0 ? una + rwnd : Long.MAX_VALUE);
    }

    /** Highest sequence number the congestion window alone allows. */
    long cwndLimit() {
        return nxt + cc.allowed(scoreboard.pipe()) * mss;
    }

    int segs(int len) {
        return Math.max(1, (len + mss - 1) / mss);
    }

    /**
     * A timer expiry's one-segment window, taken by its re-send whatever the scoreboard's pieces
     * say: nothing new leaves before an ACK (at most nxt; the receive window may allow less).
     */
    void recordTimerWindow() {
        liberations.record(-1, Math.min(limit(), nxt), false);
    }

    /** A window change, caused by the ACK tx or (tx -1) not by an ACK. */
    void recordEvent(int tx, boolean flowStart) {
        liberations.record(tx, limit(), flowStart);
    }
}
