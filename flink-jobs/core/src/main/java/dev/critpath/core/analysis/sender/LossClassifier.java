package dev.critpath.core.analysis.sender;

import dev.critpath.core.analysis.AnalysisConfig;
import dev.critpath.core.analysis.LossCause;

/**
 * How the sender recognised a loss, told apart as tcpeval does, from what the sender had seen: a
 * re-send right after an ACK carrying loss evidence (duplicate ACKs, SACK, a partial ACK in
 * recovery) is a fast retransmit; otherwise a timer fired: again for the same segment without
 * progress is backoff, the first re-send of the highest segment with SACK on in the open state is
 * a tail loss probe (Linux sends TLPs only with SACK), anything else a coarse timeout.
 */
final class LossClassifier {
    static final long NONE = Long.MIN_VALUE;

    private final AnalysisConfig cfg;
    private final boolean sack;

    LossClassifier(AnalysisConfig cfg, boolean sack) {
        this.cfg = cfg;
        this.sack = sack;
    }

    /**
     * What the sender had seen when it re-sent.
     *
     * @param lastLossEvidence when the last ACK carrying loss evidence arrived, or NONE
     * @param lastAckTime      when the last ACK arrived, or NONE
     * @param minRtt           the smallest round trip seen, or -1
     * @param timerCouldFire   the minimum RTO has passed since the retransmission timer was last started
     */
    record Seen(long lastLossEvidence, long lastAckTime, long minRtt, CongestionControl.State state, long una, long nxt,
                boolean timerCouldFire) {
    }

    /**
     * @param t         when the re-send left
     * @param end       the sequence number after its bytes
     * @param prevDep   when the copy it repeats left, or NONE
     * @param segment   the scoreboard's segment it re-sends, or null
     */
    LossCause classify(long t, long end, long prevDep, Scoreboard.Segment segment, Seen seen) {
        long reorderWindow = sack && seen.minRtt() > 0 ? seen.minRtt() / 4 : 0; // RACK may wait min_rtt/4
        boolean evidenceSincePrev = seen.lastLossEvidence() != NONE && (prevDep == NONE || seen.lastLossEvidence() >= prevDep);
        boolean ackTriggered = evidenceSincePrev && seen.lastAckTime() != NONE
                && t - seen.lastLossEvidence() <= cfg.ackTriggerSlackUs + reorderWindow;
        CongestionControl.State state = seen.state();
        boolean evidenceCounts = state != CongestionControl.State.LOSS && (state != CongestionControl.State.OPEN || sack);
        // too soon for the timer: the loss evidence released it, later than the slack (RACK's reordering wait, estimated times)
        if (evidenceCounts && (ackTriggered || evidenceSincePrev && !seen.timerCouldFire())) {
            return LossCause.FAST_RETRANSMIT;
        }
        if (segment != null && (segment.lastCause == LossCause.TIMEOUT || segment.lastCause == LossCause.BACKOFF)
                && segment.unaAtLastTimer == seen.una()) {
            return LossCause.BACKOFF;
        }
        boolean open = state == CongestionControl.State.OPEN || state == CongestionControl.State.DISORDER;
        if (sack && open && end >= seen.nxt() && (segment == null || segment.lastCause == null)) {
            return LossCause.TAIL_LOSS_PROBE;
        }
        return LossCause.TIMEOUT;
    }
}
